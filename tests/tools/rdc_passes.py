#!/usr/bin/python3
"""Opens a RenderDoc capture and prints its debug-label markers and the number
of dispatches and draws under each, one per line: "<label>\t<dispatches>\t<draws>".
Runs only under /usr/bin/python3 (Debian's python3-renderdoc)."""
import sys

import renderdoc as rd


def walk(actions, label, counts, order):
    for a in actions:
        name = a.GetName(controller.GetStructuredFile()) if hasattr(a, "GetName") else a.customName
        if a.flags & rd.ActionFlags.PushMarker:
            if name not in counts:
                counts[name] = [0, 0]
                order.append(name)
            walk(a.children, name, counts, order)
            continue
        if label is not None:
            if a.flags & rd.ActionFlags.Dispatch:
                counts[label][0] += 1
            if a.flags & rd.ActionFlags.Drawcall:
                counts[label][1] += 1
        walk(a.children, label, counts, order)


rd.InitialiseReplay(rd.GlobalEnvironment(), [])
cap = rd.OpenCaptureFile()
status = cap.OpenFile(sys.argv[1], "", None)
if status != rd.ResultCode.Succeeded:
    sys.exit("cannot open %s: %s" % (sys.argv[1], status))
if not cap.LocalReplaySupport():
    sys.exit("capture cannot be replayed here")
status, controller = cap.OpenCapture(rd.ReplayOptions(), None)
if status != rd.ResultCode.Succeeded:
    sys.exit("cannot replay %s: %s" % (sys.argv[1], status))
counts, order = {}, []
walk(controller.GetRootActions(), None, counts, order)
for name in order:
    print("%s\t%d\t%d" % (name, counts[name][0], counts[name][1]))
controller.Shutdown()
cap.Shutdown()
rd.ShutdownReplay()
