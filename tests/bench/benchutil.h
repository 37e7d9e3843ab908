// SPDX-License-Identifier: GPL-3.0-or-later
// What the benchmarks share: the median of their repeats, and a call's wall time.
#pragma once

#include <QElapsedTimer>

#include <cstdio>
#include <cstring>

#include <algorithm>
#include <vector>

namespace gmlbench {

// The median of `v` (the upper one of an even count); 0 for none.
inline double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

// How long f() took, in milliseconds.
template <typename F> double timed(F &&f)
{
    QElapsedTimer t;
    t.start();
    f();
    return double(t.nsecsElapsed()) / 1e6;
}

// `--help` or `-h` among the arguments: prints `usage` (the benchmark's options and what it
// prints) and returns true, so that the benchmark exits before generating anything (several
// write gigabytes).
inline bool helpAsked(int argc, char **argv, const char *usage)
{
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
            std::fputs(usage, stdout);
            return true;
        }
    return false;
}

} // namespace gmlbench
