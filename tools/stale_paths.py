#!/usr/bin/env python3
"""Names of repository files in the docs and in source comments that do not
exist (any more): the paths a move left behind.

Read: the pages at the root (README.md, CONTRIBUTING.md), docs/*.md (all text) and the comments of the sources under
host/, pipelines/, shaders/, tests/, tools/ (// and /* */ in C, C++ and GLSL;
# in shell, Python and CMake). Code is not read: the compiler and the shader
loader already refuse a missing include.

A token is taken for a path when it has a '/' and either starts with a
top-level folder (host/ pipelines/ ...) or ends in a known extension
(.c .h .glsl .comp .md ...). It resolves when it names a file or folder of
the repository (repo_files below) from the repository root, from the folder of
the file that names it, or the way an include names it (from shaders/,
host/, pipelines/, tests/, or from a sibling folder for "../x/y.h"). A name
without a '/' but with a code extension (sim.c, bvh.glsl) must be the name of
some file in the repository. Written shorthands resolve as their parts:
"level_tr1.[ch]", "fluid_sph.{h,c}", "level.vert/.frag", globs ("vic_*.comp",
"scenes/*.json"); a folder-less stem of a top-level path ("pipelines/fluid/fluid_wcsph")
resolves when some "stem.*" exists.

Not checked, on purpose:
- URLs and absolute paths (/tmp/m/x.json): not files of this repository;
- placeholders: a word in capitals (results/FILE.json, tests/test_NAME.c), in
  <angle brackets> (feature_<name>.c), one letter (scenes/x.json) or one of
  the few words in PLACEHOLDERS;
- output folders the program writes (OUTPUT_ROOTS: out/, build/, ...);
- files of other projects the docs quote (EXTERNAL).

Prints one line per stale name (file:line: name) and exits 1 if there is
any; exits 0 quietly otherwise. Run it by hand from anywhere:
    python3 tools/stale_paths.py
"""
import glob
import os
import re
import subprocess
import sys

TOP_FOLDERS = {"host", "pipelines", "shaders", "scenes", "tests", "tools", "docs", "levels", "results"}
PATH_EXTS = {"c", "h", "cpp", "hpp", "glsl", "comp", "vert", "frag", "md", "sh", "json", "py", "phd", "txt",
             "cmake"}
# A name without a folder is only taken for a file name with one of these
# (README.md, scene.json and data.txt are too often words or examples).
BARE_EXTS = {"c", "h", "cpp", "glsl", "comp", "vert", "frag", "sh", "py"}
# Where the program writes, relative to where it runs: never repository files.
OUTPUT_ROOTS = {"out", "build", "bench", "tmp", "tmp_dir"}
# Example names in prose ("an include of foo.glsl", "shaders/dir/file.comp").
PLACEHOLDERS = {"name", "foo", "bar", "file", "dir", "family"}
# Files of other projects that the docs name, and files the build generates.
EXTERNAL = {
    "lvp_execute.c", "lp_setup.c", "lp_query.c",  # Mesa's lavapipe / llvmpipe (docs/benchmarks.md)
    "build_info.h",  # generated into build/<preset>/generated/ (CMakeLists.txt)
}
# Where an include-style name resolves from: the include roots of the C
# targets and of the shader compiler, and (for "../x/y.h") a folder beside.
INCLUDE_ROOTS = ["shaders", "host", "pipelines", "tests", "shaders/common", "host/app", "host/app/io",
                 "host/app/panel", "host/app/run", "host/app/bench", "host/app/tools", "pipelines/core"]

COMMENT_C = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
COMMENT_HASH = re.compile(r'(?:^|(?<=\s))#[^\n]*|"(?:\\.|[^"\\\n])*"|\'[^\'\n]*\'', re.M)
PART = r'(?:\.\.|[\w\-*<>][\w.\-*<>]*)'
# path, then an optional [ch] or {h,c} suffix, then optional /.frag alternates
TOKEN = re.compile(r'(?<![\w./:~…-])(/?' + PART + r'(?:/' + PART + r')*)(\[[a-z]+\]|\{[\w,.]+\})?((?:/\.\w+)*)')
URL = re.compile(r'[a-z][a-z+]*://\S+')
# FILE.json, SCENE_demo, test_NAME.c, x.json: a word in capitals, or one letter
PLACEHOLDER_PART = re.compile(r'(^|[_.])[A-Z]{2,}([_.]|$)|^[A-Za-z]([._]|$)')


def repo_files():
    """The repository's files: git's list (tracked, and new files not yet
    added, less the ignored build and output folders), or without git the
    tree less those folders."""
    try:
        out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                             capture_output=True, text=True, check=True).stdout
        return [f for f in out.split("\n") if f and os.path.isfile(f)]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for top, dirs, names in os.walk("."):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d not in OUTPUT_ROOTS | {"__pycache__"}]
            files += [os.path.relpath(os.path.join(top, n)) for n in names]
        return files


def comment_lines(path, text):
    """(line number, text) for each comment line of a source file."""
    hash_style = path.endswith((".sh", ".py", ".cmake")) or os.path.basename(path) == "CMakeLists.txt"
    pattern = COMMENT_HASH if hash_style else COMMENT_C
    for m in pattern.finditer(text):
        s = m.group(0)
        if s.startswith(("'", '"')):
            continue  # a string literal: code, not a comment
        line = text.count("\n", 0, m.start()) + 1
        for k, part in enumerate(s.split("\n")):
            yield line + k, part


def expand(body, suffix, alternates):
    """The names a written shorthand stands for."""
    names = [body]
    if suffix.startswith("["):
        names = [body + c for c in suffix[1:-1]]
    elif suffix.startswith("{"):
        names = [body + c for c in suffix[1:-1].split(",")]
    for ext in alternates.split("/.")[1:]:
        names.append(re.sub(r"\.\w+$", "", body) + "." + ext)
    return names


class Repo:
    def __init__(self, files):
        self.files = set(files)
        self.basenames = {os.path.basename(f) for f in files}
        self.folders = set()
        for f in files:
            while "/" in f:
                f = f.rsplit("/", 1)[0]
                self.folders.add(f)

    def has(self, path):
        if "*" in path:
            return any(p in self.files or p in self.folders for p in glob.glob(path))
        return path in self.files or path in self.folders

    def resolves(self, name, here):
        for root in ["", here] + INCLUDE_ROOTS:
            p = os.path.normpath(os.path.join(root, name))
            if self.has(p):
                return True
        return False

    def has_basename(self, name):
        if "*" in name:
            rx = re.compile("^" + re.escape(name).replace(r"\*", ".*") + "$")
            return any(rx.match(b) for b in self.basenames)
        return name in self.basenames


def stale_in_line(repo, here, line):
    line = URL.sub("", line)
    for m in TOKEN.finditer(line):
        body, suffix, alternates = m.group(1), m.group(2) or "", m.group(3) or ""
        if not suffix:
            body = body.rstrip(".")  # the end of a sentence
        body = body.rstrip("-")
        parts = body.split("/")
        if body.startswith("/") or "<" in body or ">" in body:
            continue
        if any(PLACEHOLDER_PART.search(p) or p.split(".")[0].lower() in PLACEHOLDERS for p in parts):
            continue
        if parts[0] in OUTPUT_ROOTS:
            continue
        for name in expand(body, suffix, alternates):
            last = name.rsplit("/", 1)[-1]
            ext = last.rsplit(".", 1)[-1] if "." in last else ""
            if len(parts) == 1:
                if ext in BARE_EXTS and name not in EXTERNAL and not repo.has_basename(name):
                    yield name
                continue
            if parts[0] not in TOP_FOLDERS and ext not in PATH_EXTS:
                continue  # "and/or", "2/3": not a path
            if repo.resolves(name, here):
                continue
            if not ext and parts[0] in TOP_FOLDERS and repo.resolves(name + ".*", here):
                continue  # "host/scene/level_tr1" for level_tr1.c and .h
            yield name


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    files = sorted(repo_files())
    repo = Repo(files)
    stale = 0
    for f in files:
        if f.endswith(".md") and (f.count("/") == 0 or (f.startswith("docs/") and f.count("/") == 1)):
            text = open(f, encoding="utf-8").read()
            lines = enumerate(text.split("\n"), 1)
        elif (f.split("/")[0] in ("host", "pipelines", "shaders", "tests", "tools")
              and not f.startswith("tests/fuzz/corpus/")
              and (f.rsplit(".", 1)[-1] in BARE_EXTS | {"cmake", "vert", "frag", "hpp"})):
            text = open(f, encoding="utf-8", errors="replace").read()
            lines = comment_lines(f, text)
        else:
            continue
        here = os.path.dirname(f)
        for n, line in lines:
            for name in stale_in_line(repo, here, line):
                print(f"{f}:{n}: {name} does not exist")
                stale += 1
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
