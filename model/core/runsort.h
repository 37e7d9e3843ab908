// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Sorting data that arrives nearly in order (rows read chunk by chunk, ids handed out as a
// file is read): the runs already in order are merged instead of sorting the whole.

#include <algorithm>
#include <cstddef>
#include <vector>

namespace gml {

// Sorts rows read chunk by chunk by `before`: `descents` are the indices where a row sorts
// before the one read before it (each chunk is sorted; chunks written as an importer's buffer
// filled overlap a little where the file was not in time order: a parent written when it ends,
// after its children). Each run merges into the sorted rows before it from the first row it
// precedes: linear when the overlap is small, and a sort of them all once the merges have cost
// more than that would. `before` is a strict total order, so the result is the sort's.
template <class T, class Before>
void sortRuns(std::vector<T> &rows, const std::vector<size_t> &descents, Before before)
{
    size_t merged = 0;
    for (size_t k = 0; k < descents.size(); ++k) {
        const auto mid = rows.begin() + std::ptrdiff_t(descents[k]);
        const auto last =
            k + 1 < descents.size() ? rows.begin() + std::ptrdiff_t(descents[k + 1]) : rows.end();
        const auto from = std::upper_bound(rows.begin(), mid, *mid, before);
        merged += size_t(last - from);
        if (merged > 8 * rows.size()) {
            std::sort(rows.begin(), rows.end(), before);
            return;
        }
        std::inplace_merge(from, mid, last, before);
    }
}

// Sorts `rows` by `before`, a strict total order (so the result is std::sort's), by merging the
// runs they already form: linear when they arrive nearly sorted (correlation ids, flows by
// slice id), a sort of them all when they do not.
template <class T, class Before> void sortNearlySorted(std::vector<T> &rows, Before before)
{
    std::vector<size_t> descents;
    for (size_t i = 1; i < rows.size(); ++i)
        if (before(rows[i], rows[i - 1]))
            descents.push_back(i);
    sortRuns(rows, descents, before);
}
template <class T> void sortNearlySorted(std::vector<T> &rows)
{
    sortNearlySorted(rows, [](const T &a, const T &b) { return a < b; });
}

} // namespace gml
