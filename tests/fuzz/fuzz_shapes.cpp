// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzzes the shape parser and the op costs (issue 70): the input is split at NUL bytes into
// "Input Dims", "Input type" and "Concrete Inputs" texts and a recorded "flops"; every costed
// operator is costed with them. A crash, a sanitizer report (a wrapped or out-of-range
// conversion), or a cost that is negative, not finite, or from a shape outside physical bounds
// is a finding; so is a recorded count accepted outside [0, 2^60].
#include "fuzzcheck.h"
#include "opcost.h"
#include "physical.h"

#include <cmath>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view all(reinterpret_cast<const char *>(data), size);
    std::string_view parts[4];
    size_t at = 0;
    for (int i = 0; i < 4; ++i) {
        const size_t next = std::min(all.find('\0', at), all.size());
        parts[i] = at <= all.size() ? all.substr(at, next - at) : std::string_view();
        at = next + 1;
    }
    if (const auto f = gml::physical::recordedFlops(parts[3]))
        gmlfuzz::check(std::isfinite(*f) && *f >= 0 && *f <= gml::physical::kMaxOpFlops,
                       "a recorded count outside its domain was accepted");
    QString outside;
    const auto in = gml::OpInputs::parse(parts[0], parts[1], parts[2], &outside);
    if (!in)
        return 0;
    for (const auto &d : in->dims) {
        double n = 1;
        for (const qint64 x : d) {
            gmlfuzz::check(x >= 0 && double(x) <= gml::physical::kMaxDimension,
                           "a dimension outside its domain was accepted");
            n *= double(x);
        }
        gmlfuzz::check(n <= gml::physical::kMaxTensorElements,
                       "a tensor above 2^48 elements was accepted");
    }
    static const QStringList names = gml::costedOpNames();
    const gml::Dims *given = in->dims.empty() ? nullptr : &in->dims.front();
    for (const QString &name : names)
        for (const int parts : {1, 2}) {
            const gml::OpCost c = gml::opCost(name, *in, given, parts);
            gmlfuzz::check(std::isfinite(c.flops) && c.flops >= 0, "FLOPs negative or not finite");
            gmlfuzz::check(std::isfinite(c.bytes) && c.bytes >= 0, "bytes negative or not finite");
        }
    return 0;
}
