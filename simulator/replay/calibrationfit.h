// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "types.h"

#include <optional>
#include <vector>

namespace gml::sim {

// What one class of a measured pair says about its durations: the predicted ones matched with
// the measured ones rank by rank (the k-th shortest predicted with the measured at the same
// quantile; the two runs need not have as many), and a line through them, measured = floor +
// factor x predicted, whose sum is the measured sum (least squares with an intercept; a floor
// below 0 is refitted through the origin, a time never goes negative).
struct FittedLine
{
    double floorNs = 0;
    double factor = 1;
    // The spread of the matched durations about the line, as the standard deviation of their
    // log ratio, and how many distinct durations (within 2%) the class has: a run of other
    // shapes errs on the class's total by about sigma / sqrt(shapes).
    double sigma = 0;
    int shapes = 0;
    TimeNs from = 0, to = 0; // the predicted durations it saw
    double standardError() const;
};

namespace detail {

// Nullopt when either side is empty or sums to 0.
std::optional<FittedLine> fitLine(std::vector<TimeNs> predicted, std::vector<TimeNs> measured);

// A ratio of totals (a class scaled whole, as the host path): factor = sum(measured) /
// sum(predicted), its spread from the matched durations as above.
std::optional<FittedLine> fitRatio(std::vector<TimeNs> predicted, std::vector<TimeNs> measured);

} // namespace detail

} // namespace gml::sim
