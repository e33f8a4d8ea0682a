#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Writes a C++ header holding the bytes of the reaper program (or none: no reaper for this
# architecture, and pid 1 stays the launcher's clone).
import sys

out = sys.argv[1]
data = open(sys.argv[2], "rb").read() if len(sys.argv) > 2 else b""
with open(out, "w") as f:
    f.write("// Generated from src/engine/reaper/reaper.c; do not edit.\n#pragma once\n")
    f.write("namespace rf::engine {\n")
    f.write(f"inline constexpr unsigned long kReaperSize = {len(data)};\n")
    f.write("alignas(16) inline constexpr unsigned char kReaperProgram[] = {\n")
    for i in range(0, len(data), 16):
        f.write("  " + ", ".join(str(b) for b in data[i:i + 16]) + ",\n")
    f.write("  0};\n}  // namespace rf::engine\n")
