#!/usr/bin/env python3
"""mesh_scene.py: writes a generated mesh scene for the radiosity (issue 11).

    python3 tools/mesh_scene.py OUT_DIR [--triangles N] [--seed S]

OUT_DIR gets mesh_scene.json (a world-format scene, docs/scenes.md) and the
OBJ files it names (relative paths): a closed 4 x 4 m room, 2.5 m high
(room.obj: 4 walls and the ceiling, facing in), a 1 x 1 m emissive panel
just under the ceiling facing down (light.obj), a displaced terrain over
the whole floor (terrain.obj) and three sculptures standing on it: two
displaced cube-spheres and a torus (sculptures.obj). Every triangle is
counter-clockwise about its front (up for the terrain, out of the
sculptures, into the room for the walls), none is degenerate (checked here
with the loader's rule: area >= 1e-6 x longest edge squared, in float).
The surfaces are tessellated so that about N triangles come out (default
50000; the room and the panel take a fixed share). The scene's
radiosity patch_size is the longest edge, rounded up: one patch a
triangle. The same arguments give the same bytes (a seeded generator, no
clock). Python 3 standard library only.
"""

import argparse
import json
import math
import os
import random
import struct

ROOM = (4.0, 2.5, 4.0)  # x, y (up), z extent; the room spans [0, ROOM]
LIGHT_HALF = 0.5  # the panel is 1 x 1 m around the ceiling's centre
LIGHT_DROP = 0.02  # below the ceiling, so the two never touch
MIN_SHAPE = 1e-6  # host/scene/geometry.h CS_GEOMETRY_MIN_SHAPE

ALBEDO = {
    "room": [0.7, 0.7, 0.68],
    "light": [0.78, 0.78, 0.78],
    "terrain": [0.45, 0.42, 0.3],
    "sculptures": [0.8, 0.35, 0.25],
}
EMISSION = [12.0, 11.0, 9.0]


def f32(x):
    """x rounded to float, as the loader stores it."""
    return struct.unpack("f", struct.pack("f", x))[0]


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def norm(a):
    return math.sqrt(dot(a, a))


class Mesh:
    """Vertices (rounded to 6 decimals, as written) and triangles."""

    def __init__(self):
        self.vertices = []
        self.triangles = []

    def vertex(self, p):
        self.vertices.append(tuple(round(c, 6) for c in p))
        return len(self.vertices) - 1

    def triangle(self, a, b, c, front):
        """Adds (a, b, c) turned so that its normal points along `front`."""
        pa, pb, pc = self.vertices[a], self.vertices[b], self.vertices[c]
        if dot(cross(sub(pb, pa), sub(pc, pa)), front) < 0.0:
            b, c = c, b
        self.triangles.append((a, b, c))

    def grid(self, rows, cols, point, front):
        """A (rows + 1) x (cols + 1) grid of point(u, v), u and v in [0, 1],
        two triangles a cell, each turned towards front(u, v)."""
        first = len(self.vertices)
        for i in range(rows + 1):
            for j in range(cols + 1):
                self.vertex(point(i / rows, j / cols))
        for i in range(rows):
            for j in range(cols):
                a = first + i * (cols + 1) + j
                b, c, d = a + 1, a + cols + 1, a + cols + 2
                u, v = (i + 0.5) / rows, (j + 0.5) / cols
                self.triangle(a, b, d, front(u, v))
                self.triangle(a, d, c, front(u, v))

    def check(self, name):
        """Every triangle valid by the loader's rule, in float."""
        longest_edge = 0.0
        for t in self.triangles:
            p = [tuple(f32(c) for c in self.vertices[k]) for k in t]
            edges = [norm(sub(p[1], p[0])), norm(sub(p[2], p[0])), norm(sub(p[2], p[1]))]
            area2 = norm(cross(sub(p[1], p[0]), sub(p[2], p[0])))
            longest = max(edges)
            if area2 == 0.0 or area2 < MIN_SHAPE * longest * longest:
                raise SystemExit("mesh_scene.py: %s: degenerate triangle %s" % (name, p))
            longest_edge = max(longest_edge, longest)
        return longest_edge

    def write(self, path):
        with open(path, "w", newline="\n") as out:
            out.write("# written by tools/mesh_scene.py\n")
            for p in self.vertices:
                out.write("v %.6f %.6f %.6f\n" % p)
            for a, b, c in self.triangles:
                out.write("f %d %d %d\n" % (a + 1, b + 1, c + 1))


class Terrain:
    """A height field over the floor: a few random waves and bumps, 0.05 to
    about 0.6 m high, smooth (no cliff makes a sliver)."""

    def __init__(self, rng):
        self.waves = [(rng.uniform(0.5, 2.0), rng.uniform(0, 2 * math.pi), rng.uniform(0, 2 * math.pi),
                       rng.uniform(0.02, 0.06)) for _ in range(4)]
        self.bumps = [(rng.uniform(0.8, 3.2), rng.uniform(0.8, 3.2), rng.uniform(0.3, 0.7),
                       rng.uniform(0.1, 0.25)) for _ in range(3)]

    def height(self, x, z):
        h = 0.2
        for k, angle, phase, amp in self.waves:
            h += amp * math.sin(k * (x * math.cos(angle) + z * math.sin(angle)) * 2.0 + phase)
        for bx, bz, r, amp in self.bumps:
            h += amp * math.exp(-((x - bx) ** 2 + (z - bz) ** 2) / (r * r))
        return h


def add_room(mesh, cell):
    """The 4 walls and the ceiling, facing into the room."""
    sx, sy, sz = ROOM
    nx, ny, nz = (max(1, round(s / cell)) for s in ROOM)
    centre = (sx / 2, sy / 2, sz / 2)

    def inward(p):
        return lambda u, v: sub(centre, p(u, v))

    walls = [
        (ny, nz, lambda u, v: (0.0, u * sy, v * sz)),
        (ny, nz, lambda u, v: (sx, u * sy, v * sz)),
        (ny, nx, lambda u, v: (v * sx, u * sy, 0.0)),
        (ny, nx, lambda u, v: (v * sx, u * sy, sz)),
        (nx, nz, lambda u, v: (u * sx, sy, v * sz)),
    ]
    for rows, cols, point in walls:
        mesh.grid(rows, cols, point, inward(point))


def add_light(mesh, cell):
    sx, sy, sz = ROOM
    n = max(1, round(2 * LIGHT_HALF / cell))
    y = sy - LIGHT_DROP
    mesh.grid(n, n, lambda u, v: (sx / 2 + (u - 0.5) * 2 * LIGHT_HALF, y, sz / 2 + (v - 0.5) * 2 * LIGHT_HALF),
              lambda u, v: (0.0, -1.0, 0.0))


def add_terrain(mesh, terrain, side):
    sx, _, sz = ROOM
    mesh.grid(side, side, lambda u, v: (u * sx, terrain.height(u * sx, v * sz), v * sz), lambda u, v: (0.0, 1.0, 0.0))


def add_blob(mesh, centre, radius, side, rng):
    """A cube-sphere (6 faces of side x side cells pushed onto the sphere),
    its radius displaced by a few low-frequency waves (at most +-20%)."""
    waves = [(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(2, 4), rng.uniform(0, 6.3))
             for _ in range(3)]

    def surface(d):
        n = norm(d)
        d = (d[0] / n, d[1] / n, d[2] / n)
        r = radius * (1.0 + sum(0.065 * math.sin(f * (a * d[0] + b * d[1] + c * d[2]) + p) for a, b, c, f, p in waves))
        return (centre[0] + r * d[0], centre[1] + r * d[1], centre[2] + r * d[2])

    for axis in range(3):
        for sign in (-1.0, 1.0):
            def cube(u, v, axis=axis, sign=sign):
                q = [0.0, 0.0, 0.0]
                q[axis] = sign
                q[(axis + 1) % 3] = 2 * u - 1
                q[(axis + 2) % 3] = 2 * v - 1
                return q

            mesh.grid(side, side, lambda u, v, cube=cube: surface(cube(u, v)),
                      lambda u, v, cube=cube: tuple(cube(u, v)))


def add_torus(mesh, centre, major, minor, around, across):
    """A torus standing up (its axis along x), the tube's outside as front."""

    def ring_centre(u):
        a = 2 * math.pi * u
        return (centre[0], centre[1] + major * math.cos(a), centre[2] + major * math.sin(a))

    def point(u, v):
        a, b = 2 * math.pi * u, 2 * math.pi * v
        c = ring_centre(u)
        radial = (0.0, math.cos(a), math.sin(a))
        return (c[0] + minor * math.sin(b), c[1] + minor * math.cos(b) * radial[1],
                c[2] + minor * math.cos(b) * radial[2])

    mesh.grid(around, across, point, lambda u, v: sub(point(u, v), ring_centre(u)))


def sizes(triangles):
    """Cells for each part so the total is about `triangles`: the room and
    the panel fixed by a cell of 0.25 m (0.5 m below 20 k triangles), then
    60% of the rest to the terrain, 30% to the two blobs, 10% to the torus."""
    cell = 0.25 if triangles >= 20000 else 0.5
    nx, ny, nz = (max(1, round(s / cell)) for s in ROOM)
    fixed = 2 * (2 * ny * nz + 2 * ny * nx + nx * nz) + 2 * max(1, round(2 * LIGHT_HALF / cell)) ** 2
    rest = max(triangles - fixed, 600)
    terrain_side = max(4, round(math.sqrt(0.6 * rest / 2)))
    blob_side = max(2, round(math.sqrt(0.3 * rest / 2 / 12)))
    torus_across = max(4, round(math.sqrt(0.1 * rest / 2 / 3)))
    return cell, terrain_side, blob_side, torus_across * 3, torus_across


def scene_text(scene):
    """The scene as JSON, one key a line, one geometry element a line."""
    lines = []
    for key, value in scene.items():
        if key == "geometry":
            items = ",\n".join("    " + json.dumps(element) for element in value)
            lines.append('  "geometry": [\n%s\n  ]' % items)
        else:
            lines.append("  %s: %s" % (json.dumps(key), json.dumps(value)))
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--triangles", type=int, default=50000, help="about this many triangles (default 50000)")
    parser.add_argument("--seed", type=int, default=11, help="the terrain's and the sculptures' shapes")
    args = parser.parse_args()
    if args.triangles < 1000:
        parser.error("--triangles: give at least 1000")
    rng = random.Random(args.seed)
    cell, terrain_side, blob_side, torus_around, torus_across = sizes(args.triangles)
    terrain = Terrain(rng)
    parts = {name: Mesh() for name in ("room", "light", "terrain", "sculptures")}
    add_room(parts["room"], cell)
    add_light(parts["light"], cell)
    add_terrain(parts["terrain"], terrain, terrain_side)
    for x, z, r in ((1.1, 1.2, 0.42), (2.9, 2.6, 0.35)):
        add_blob(parts["sculptures"], (x, terrain.height(x, z) + 0.7 * r, z), r, blob_side, rng)
    tx, tz = 1.3, 3.0
    add_torus(parts["sculptures"], (tx, terrain.height(tx, tz) + 0.45, tz), 0.4, 0.1, torus_around, torus_across)

    os.makedirs(args.out_dir, exist_ok=True)
    longest = 0.0
    geometry = []
    for name, mesh in parts.items():
        longest = max(longest, mesh.check(name))
        mesh.write(os.path.join(args.out_dir, name + ".obj"))
        element = {"mesh": {"file": name + ".obj"}, "albedo": ALBEDO[name]}
        if name == "light":
            element["emission"] = EMISSION
        geometry.append(element)
    total = sum(len(m.triangles) for m in parts.values())
    scene = {
        "description": "tools/mesh_scene.py --triangles %d --seed %d: %d triangles, a terrain and three sculptures in "
                       "a closed room lit by a ceiling panel; one patch a triangle (docs/light.md)"
                       % (args.triangles, args.seed, total),
        "dim": 3,
        "domain": {"min": [0, 0, 0], "max": list(ROOM)},
        "gravity": [0, -9.81, 0],
        "dt": 0.008333,
        # A scene lists at least one fluid: a small PBF drop over the
        # terrain, inside its own small domain (a small distance-field bake).
        "fluids": [{"solver": "pbf", "domain": {"min": [1.6, 0, 1.6], "max": [2.4, 1.5, 2.4]},
                    "particle_spacing": 0.05, "smoothing_radius": 0.1,
                    "materials": [{"name": "water", "rest_density": 1000, "mass": 0.125,
                                   "color": [0.15, 0.4, 0.85]}],
                    "blocks": [{"min": [1.9, 1.1, 1.9], "max": [2.1, 1.3, 2.1], "material": "water"}],
                    "pbf": {}}],
        "geometry": geometry,
        "radiosity": {"patch_size": math.ceil(longest * 1000.0) / 1000.0},
        "camera": {"position": [2.0, 1.6, -1.5], "target": [2.0, 0.5, 2.0], "up": [0, 1, 0], "fov_degrees": 60},
    }
    with open(os.path.join(args.out_dir, "mesh_scene.json"), "w", newline="\n") as out:
        out.write(scene_text(scene))
    print("mesh_scene.py: %d triangles (%s) in %s" % (
        total, ", ".join("%s %d" % (n, len(m.triangles)) for n, m in parts.items()), args.out_dir))


if __name__ == "__main__":
    main()
