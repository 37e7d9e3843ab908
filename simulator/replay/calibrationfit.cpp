// SPDX-License-Identifier: GPL-3.0-or-later
// The line a calibration fits through one class of a measured pair (calibration.h).
#include "calibrationfit.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

namespace gml::sim {

namespace {

struct Matched
{
    std::vector<double> p, m; // predicted ascending, the measured at its quantile
    double sumMeasured = 0;
};

// Each predicted duration with the measured one at its quantile, scaled so the matched sum is
// the measured sum (two runs of one model may split a family into more or fewer kernels).
std::optional<Matched> matchQuantiles(std::vector<TimeNs> predicted, std::vector<TimeNs> measured)
{
    if (predicted.empty() || measured.empty())
        return std::nullopt;
    std::sort(predicted.begin(), predicted.end());
    std::sort(measured.begin(), measured.end());
    Matched x;
    const size_t np = predicted.size(), nm = measured.size();
    double sum = 0;
    for (size_t r = 0; r < np; ++r) {
        const size_t at = std::min(nm - 1, size_t((double(r) + 0.5) * double(nm) / double(np)));
        x.p.push_back(double(predicted[r]));
        x.m.push_back(double(measured[at]));
        sum += x.m.back();
    }
    x.sumMeasured = std::accumulate(measured.begin(), measured.end(), 0.0);
    if (!(sum > 0) || !(x.sumMeasured > 0) || !(std::accumulate(x.p.begin(), x.p.end(), 0.0) > 0))
        return std::nullopt;
    for (double &m : x.m)
        m *= x.sumMeasured / sum;
    return x;
}

// The spread of the matched pairs about the fitted line, and the distinct durations.
void lineSpread(const Matched &x, FittedLine &f)
{
    double s = 0, s2 = 0;
    int n = 0, shapes = 0;
    double last = -1;
    for (size_t i = 0; i < x.p.size(); ++i) {
        const double line = f.floorNs + f.factor * x.p[i];
        if (x.p[i] > 0 && x.m[i] > 0 && line > 0) {
            const double r = std::log(x.m[i] / line);
            s += r;
            s2 += r * r;
            ++n;
        }
        if (last < 0 || x.p[i] > last * 1.02) {
            ++shapes;
            last = std::max(x.p[i], 1.0);
        }
    }
    f.sigma = n > 1 ? std::sqrt(std::max(0.0, s2 / n - (s / n) * (s / n))) : 0;
    f.shapes = shapes;
    f.from = TimeNs(x.p.front());
    f.to = TimeNs(x.p.back());
}

} // namespace

double FittedLine::standardError() const
{
    return sigma / std::sqrt(double(std::max(1, shapes)));
}

namespace detail {

std::optional<FittedLine> fitLine(std::vector<TimeNs> predicted, std::vector<TimeNs> measured)
{
    const auto x = matchQuantiles(std::move(predicted), std::move(measured));
    if (!x)
        return std::nullopt;
    const double n = double(x->p.size());
    const double mp = std::accumulate(x->p.begin(), x->p.end(), 0.0) / n;
    const double mm = x->sumMeasured / n;
    double sxy = 0, sxx = 0;
    for (size_t i = 0; i < x->p.size(); ++i) {
        sxy += (x->p[i] - mp) * (x->m[i] - mm);
        sxx += (x->p[i] - mp) * (x->p[i] - mp);
    }
    FittedLine f;
    f.factor = sxx > 0 ? sxy / sxx : 0;
    f.floorNs = mm - f.factor * mp;
    if (!(f.factor > 0) || f.floorNs < 0 || !std::isfinite(f.floorNs)) {
        f.floorNs = 0; // through the origin: the ratio of the sums
        f.factor = mm / mp;
    }
    lineSpread(*x, f);
    return f;
}

std::optional<FittedLine> fitRatio(std::vector<TimeNs> predicted, std::vector<TimeNs> measured)
{
    const auto x = matchQuantiles(std::move(predicted), std::move(measured));
    if (!x)
        return std::nullopt;
    FittedLine f;
    f.factor = x->sumMeasured / std::accumulate(x->p.begin(), x->p.end(), 0.0);
    lineSpread(*x, f);
    return f;
}

} // namespace detail

} // namespace gml::sim
