// SPDX-License-Identifier: GPL-3.0-or-later
#include "physical.h"

#include <charconv>
#include <cmath>

namespace gml::physical {

std::optional<double> recordedFlops(std::string_view text)
{
    while (!text.empty() && (text.front() == ' ' || text.front() == '"'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '"'))
        text.remove_suffix(1);
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    if (!std::isfinite(v) || v < 0 || v > kMaxOpFlops)
        return std::nullopt;
    return v;
}

std::optional<double> utilisation(double value)
{
    if (!std::isfinite(value) || value < 0 || value > 1 + 1e-9)
        return std::nullopt;
    return std::min(value, 1.0);
}

} // namespace gml::physical
