// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "types.h"

#include <QString>
#include <QTimeZone>

#include <optional>
#include <utility>

namespace gml {

// Trace times below this (about 11.6 days in ns) are relative to the capture, not epoch times.
inline constexpr TimeNs kRelativeTimeLimit = 1'000'000'000'000'000;

// A TensorFlow profiler capture lives in <logdir>/plugins/profile/<YYYY_MM_DD_HH_MM_SS>/, named
// at the capture's local time; TensorBoard's <logdir>/events.out.tfevents.<epoch s>.<host>.
// profile-empty marks the same moment without a time zone. The capture start (epoch ns) of
// the file at `path` and how it was found; nullopt outside such a folder. Both files of a
// capture (trace.json.gz, xplane.pb) hold times relative to it.
std::optional<std::pair<TimeNs, QString>> tensorflowCaptureStart(const QString &path,
                                                                 const QTimeZone &zone);

} // namespace gml
