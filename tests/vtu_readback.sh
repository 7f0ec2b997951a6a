#!/usr/bin/env bash
# --dump-format vtu: the .vtu/.vtp files and .pvd collections that ParaView
# opens hold exactly what the PLY dumps hold. Two small scenes run twice
# each, once writing VTK files and once PLY (cistern is bit-deterministic:
# the same scene and frames give the same bits):
#   two_fluids_2d  2D, two fluids: one series per fluid (particles_<fluid>_*)
#   dam_break_3d   3D at 2k particles with its surface: particles and mesh
# VTK's own readers (Debian's python3-vtk9) read every .vtu and .vtp back,
# and every value is compared bit for bit with the PLY of the same frame;
# every .pvd lists each file of its series once, with increasing times equal
# to stats.csv's time_s of the frame. $1 is the cistern binary.
# ctest labels: quick,gpu -- 23 at load 7 (4 short runs; VTK reads them back)
set -uo pipefail
cistern=${1:?usage: vtu_readback.sh path/to/cistern}
source "$(dirname "$0")/util/expect.sh"

# Debian's VTK is a module of the system Python, not of a pyenv python3 on PATH.
python=/usr/bin/python3
if ! "$python" -c "import vtk" 2>/dev/null; then
  echo "FAIL: $python cannot import vtk: install Debian's python3-vtk9 (apt-get install python3-vtk9;" \
    "tools/install-deps.sh installs it)" >&2
  exit 1
fi

frames=5
# name, scene, extra options
runs=("two_fluids two_fluids_2d" "dam_3d dam_break_3d --particles 2k --mesh-every 2")
for entry in "${runs[@]}"; do
  read -r name scene extra <<<"$entry"
  for format in vtu ply; do
    # shellcheck disable=SC2086  # extra is a list of options
    expect 0 "frames of $scene" -- "$cistern" run "$scene" --headless --frames $frames --dump-every 2 \
      --png-every 0 --dump-format $format $extra --out "$tmp/$name.$format"
  done
done
[ "$failures" = 0 ] || exit 1

if ! "$python" - "$tmp" <<'EOF'
import csv, glob, os, re, sys
import xml.etree.ElementTree as ET
import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy

tmp = sys.argv[1]
failures = []
def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg, file=sys.stderr)

def bits(a):
    # Compared as bits: -0.0 and NaN payloads count, and NaN equals itself.
    return np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)

def same(what, got, want):
    if got.shape != want.shape:
        fail(f"{what}: shape {got.shape}, the PLY has {want.shape}")
    elif not np.array_equal(got, want):
        fail(f"{what}: {np.count_nonzero(got != want)} values differ from the PLY")

def ply_body(path):
    data = open(path, "rb").read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    return data[:end].decode(), data[end:]

def ply_particles(path):
    _, body = ply_body(path)
    t = np.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("vx", "<f4"), ("vy", "<f4"), ("vz", "<f4"),
                  ("density", "<f4"), ("material", "<u4")])
    return np.frombuffer(body, t)

def ply_mesh(path):
    header, body = ply_body(path)
    nv = int(re.search(r"element vertex (\d+)", header).group(1))
    nf = int(re.search(r"element face (\d+)", header).group(1))
    v = np.frombuffer(body, "<f4", 6 * nv).reshape(nv, 6)
    f = np.frombuffer(body[24 * nv:], np.dtype([("n", "u1"), ("i", "<u4", 3)]), nf)
    if not np.all(f["n"] == 3):
        fail(f"{path}: a face that is not a triangle")
    return v[:, 0:3], v[:, 3:6], f["i"]

def xml_head(path):
    # The XML part of a file with raw appended data ends at the '_'.
    data = open(path, "rb").read()
    return data[:data.index(b"<AppendedData")].decode() + data[data.index(b"<AppendedData"):][:40].decode("latin1")

def read(reader_class, path):
    r = reader_class()
    r.SetFileName(path)
    r.Update()
    if r.GetErrorCode() != 0:
        fail(f"{path}: VTK's reader reports error {r.GetErrorCode()}")
    return r.GetOutput()

def check_style(path, vtk_type):
    head = xml_head(path)
    for want in (f'type="{vtk_type}"', 'byte_order="LittleEndian"', 'header_type="UInt64"',
                 '<AppendedData encoding="raw">'):
        if want not in head:
            fail(f"{os.path.basename(path)}: no {want} in its XML")
    if 'format="ascii"' in head or 'format="binary"' in head:
        fail(f"{os.path.basename(path)}: an array that is not appended")

def time_value(data):
    return vtk_to_numpy(data.GetFieldData().GetArray("TimeValue"))[0]

def check_particles(vtu, ply):
    name = os.path.basename(vtu)
    check_style(vtu, "UnstructuredGrid")
    g = read(vtk.vtkXMLUnstructuredGridReader, vtu)
    p = ply_particles(ply)
    n = len(p)
    if g.GetNumberOfPoints() != n or g.GetNumberOfCells() != n:
        fail(f"{name}: {g.GetNumberOfPoints()} points, {g.GetNumberOfCells()} cells; the PLY has {n} particles")
        return None
    pd = g.GetPointData()
    same(f"{name} positions", bits(vtk_to_numpy(g.GetPoints().GetData())),
         bits(np.stack([p["x"], p["y"], p["z"]], axis=1)))
    same(f"{name} velocity", bits(vtk_to_numpy(pd.GetArray("velocity"))),
         bits(np.stack([p["vx"], p["vy"], p["vz"]], axis=1)))
    same(f"{name} density", bits(vtk_to_numpy(pd.GetArray("density"))), bits(p["density"]))
    material = pd.GetArray("material")
    if material.GetDataType() != vtk.VTK_UNSIGNED_INT:
        fail(f"{name}: material is {material.GetDataTypeAsString()}, not unsigned int")
    same(f"{name} material", vtk_to_numpy(material), p["material"])
    if pd.GetVectors() is None or pd.GetVectors().GetName() != "velocity":
        fail(f"{name}: velocity is not the point data's vectors")
    cells = g.GetCells()
    same(f"{name} cell types", vtk_to_numpy(g.GetCellTypesArray()), np.full(n, vtk.VTK_VERTEX, np.uint8))
    same(f"{name} connectivity", vtk_to_numpy(cells.GetConnectivityArray()), np.arange(n))
    same(f"{name} offsets", vtk_to_numpy(cells.GetOffsetsArray()), np.arange(n + 1))
    return time_value(g)

def check_mesh(vtp, ply):
    name = os.path.basename(vtp)
    check_style(vtp, "PolyData")
    m = read(vtk.vtkXMLPolyDataReader, vtp)
    pos, nrm, tri = ply_mesh(ply)
    if m.GetNumberOfPoints() != len(pos) or m.GetNumberOfPolys() != len(tri) or m.GetNumberOfCells() != len(tri):
        fail(f"{name}: {m.GetNumberOfPoints()} points, {m.GetNumberOfPolys()} polys of {m.GetNumberOfCells()} "
             f"cells; the PLY has {len(pos)} vertices, {len(tri)} triangles")
        return None
    if len(tri) == 0:
        fail(f"{name}: no triangles (the test wants a surface)")
    same(f"{name} points", bits(vtk_to_numpy(m.GetPoints().GetData())), bits(pos))
    normals = m.GetPointData().GetNormals()
    if normals is None:
        fail(f"{name}: no point normals")
    else:
        same(f"{name} normals", bits(vtk_to_numpy(normals)), bits(nrm))
    polys = m.GetPolys()
    same(f"{name} triangles", vtk_to_numpy(polys.GetConnectivityArray()), tri.reshape(-1).astype(np.int64))
    same(f"{name} offsets", vtk_to_numpy(polys.GetOffsetsArray()), np.arange(len(tri) + 1) * 3)
    return time_value(m)

def stats_times(folder):
    with open(os.path.join(folder, "stats.csv")) as f:
        return {int(row["frame"]): float(row["time_s"]) for row in csv.DictReader(f)}

def check_series(pvd, files, file_times, times):
    # Every file of the series, once, in frame order; increasing times that
    # are stats.csv's for the frame (%.6f there) and the file's TimeValue.
    name = os.path.basename(pvd)
    root = ET.parse(pvd).getroot()
    if root.get("type") != "Collection":
        fail(f"{name}: VTKFile type is {root.get('type')}, not Collection")
    sets = root.findall("./Collection/DataSet")
    listed = [d.get("file") for d in sets]
    wanted = [os.path.basename(f) for f in files]
    if listed != wanted:
        fail(f"{name} lists {listed}, the folder has {wanted}")
        return
    steps = [float(d.get("timestep")) for d in sets]
    if any(b <= a for a, b in zip(steps, steps[1:])):
        fail(f"{name}: times not increasing: {steps}")
    for file, step in zip(wanted, steps):
        frame = int(re.search(r"_(\d{5})\.vt[up]$", file).group(1))
        if frame not in times or abs(step - times[frame]) > 6e-7:
            fail(f"{name}: {file} at {step} s, stats.csv has {times.get(frame)} s for frame {frame}")
        if file_times.get(file) is not None and abs(file_times[file] - step) > 1e-8 * max(1.0, step):
            fail(f"{name}: {file} at {step} s, its TimeValue is {file_times[file]}")

checked = {"vtu": 0, "vtp": 0, "pvd": 0}
for name, fluids, meshes in (("two_fluids", ["pool", "column"], False), ("dam_3d", [None], True)):
    vtk_dir, ply_dir = os.path.join(tmp, name + ".vtu"), os.path.join(tmp, name + ".ply")
    times = stats_times(vtk_dir)
    if times != stats_times(ply_dir):
        fail(f"{name}: the two runs' stats.csv times differ")
    leftovers = glob.glob(os.path.join(vtk_dir, "*.tmp"))
    if leftovers:
        fail(f"{name}: temporary files left: {leftovers}")
    series = [("particles", "vtu", check_particles)] + ([("mesh", "vtp", check_mesh)] if meshes else [])
    expected_pvds = set()
    for prefix, ext, check in series:
        for fluid in fluids:
            stem = prefix if fluid is None else f"{prefix}_{fluid}"
            files = sorted(glob.glob(os.path.join(vtk_dir, f"{stem}_[0-9][0-9][0-9][0-9][0-9].{ext}")))
            if len(files) != 3:  # frames 0, 2 and 4 of 5
                fail(f"{name}: {len(files)} {stem}_*.{ext} files, wanted 3: {os.listdir(vtk_dir)}")
            file_times = {}
            for f in files:
                ply = os.path.join(ply_dir, os.path.basename(f)[:-3] + "ply")
                if not os.path.exists(ply):
                    fail(f"{name}: {os.path.basename(ply)} missing from the PLY run")
                    continue
                file_times[os.path.basename(f)] = check(f, ply)
                checked[ext] += 1
            pvd = os.path.join(vtk_dir, stem + ".pvd")
            expected_pvds.add(os.path.basename(pvd))
            if not os.path.exists(pvd):
                fail(f"{name}: no {stem}.pvd")
                continue
            check_series(pvd, files, file_times, times)
            checked["pvd"] += 1
    pvds = {os.path.basename(p) for p in glob.glob(os.path.join(vtk_dir, "*.pvd"))}
    if pvds != expected_pvds:
        fail(f"{name}: .pvd files {sorted(pvds)}, wanted {sorted(expected_pvds)}")

if failures:
    sys.exit(1)
print(f"checked {checked['vtu']} .vtu, {checked['vtp']} .vtp, {checked['pvd']} .pvd against the PLY dumps")
EOF
then
  fail "the VTK files differ from the PLY dumps (above)"
fi

[ "$failures" = 0 ] || exit 1
echo "vtu_readback: PASS"
