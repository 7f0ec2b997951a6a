#!/usr/bin/env bash
# Installs the Debian 12 packages cistern needs, only those missing.
# Usage: tools/install-deps.sh [--runtime-only]
set -euo pipefail

build_packages=(
  build-essential cmake ninja-build pkg-config git
  libvulkan-dev libvulkan-volk-dev vulkan-validationlayers vulkan-tools mesa-vulkan-drivers
  libshaderc-dev glslang-dev spirv-tools glslc
  libglfw3-dev libcglm-dev libstb-dev libcjson-dev libassimp-dev
  libimgui-dev                 # the panel (host/app/panel/panel.cpp): Dear ImGui 1.86, its core only
  python3
  xvfb xauth gnuplot valgrind
  xdotool                      # tests/panel_window.sh works the panel with the mouse
  ffmpeg                       # cistern run --record, F9 (host/app/io/record.c); tests/record.sh
  renderdoccmd librenderdoc-dev python3-renderdoc
  clang libclang-rt-14-dev
  cppcheck                     # tests/cppcheck.sh: static analysis at zero findings
  clang-format                 # .clang-format: the style of new code (git clang-format)
  python3-pysph python3-vtk9   # peers side by side: tools/peer_pysph.py, tools/peer_vtk.py
)

missing=()
for p in "${build_packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "cistern: installing ${#missing[@]} missing package(s): ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO=sudo; else
    echo "cistern: need root (or sudo) to install: ${missing[*]}" >&2; exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q >&2
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
