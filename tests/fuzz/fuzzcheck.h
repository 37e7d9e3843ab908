// SPDX-License-Identifier: GPL-3.0-or-later
// What a fuzzer's own check that fails does: say what, and abort (libFuzzer keeps the input).
#pragma once

#include <cstdio>
#include <cstdlib>

namespace gmlfuzz {

inline void check(bool ok, const char *what)
{
    if (!ok) {
        std::fprintf(stderr, "finding: %s\n", what);
        std::abort();
    }
}

} // namespace gmlfuzz
