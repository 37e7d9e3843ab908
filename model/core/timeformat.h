// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "types.h"

#include <QString>

#include <optional>

namespace gml {

// "850 ns", "12.5 µs", "3.25 ms", "1.002 s" with `precision` significant decimals at most.
QString formatDuration(TimeNs ns, int precision = 3);
// "16 B", "512 KiB", "2.60 GiB": a size in binary units, three significant digits.
QString formatBytes(double bytes);
// A counter's value in the unit a person reads: a size in B, KiB, MiB, GiB or "bytes" as
// formatBytes ("178.5 GiB", not "1.828e+05 MiB"); otherwise four significant digits without
// an exponent ("182800 W", "0.0125 %"), the unit after a space when there is one.
QString formatQuantity(double value, const QString &unit);
// A difference: "+1.5 ms", "-850 ns", "+0 ns".
QString formatSignedDuration(TimeNs ns);
// "2021-06-08 08:57:03 UTC": a project-clock time (ns since the epoch) as a UTC date and time.
QString formatUtc(TimeNs t);
// A ruler step: the smallest 1-2-5 x 10^k nanoseconds that is at least `minimum` up to 10 s,
// then steps of the clock and the calendar (15 s, 30 s, 1, 2, 5, 10, 15, 30 min, 1, 2, 3, 6,
// 12 h, 1, 2, 5, 10, 20, 50, 100, 200 days, then 1-2-5 x 10^k years of 365 days, 100 at most).
TimeNs niceStep(double minimum);
// A tick label for t with a known step: the unit of ten steps, as many decimals as the step
// needs ("1.2 ms" for a 100 µs step, "1250 µs" for a 10 µs step); steps of a minute or more in
// minutes, hours, days or years ("90 min", "36 h", "12 d", "2.5 y").
QString formatTick(TimeNs t, TimeNs step);
// An exact offset in the unit of its magnitude with the decimals `resolution` needs
// ("515.18 ms" for 515,180,000 ns at a 10 µs resolution; "2 s"): the ruler's base.
QString formatOffset(TimeNs t, TimeNs resolution);
// "-37.5ms", "120 us", "1.5µs", "2s", "5000" (nanoseconds when no unit); nullopt when not a
// number with one of the units ns, us, µs, ms, s.
std::optional<TimeNs> parseDuration(const QString &text);

} // namespace gml
