// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one door for the small files a user names on the command line or in a dialog (a
// calibration, transforms, a shard's plan, a cluster description, notes): read whole, within a
// size limit the message states, from a regular file or a pipe (a FIFO, `<(…)`, /dev/stdin),
// never from a device (/dev/zero would be read until memory runs out) or a folder. A pipe is
// read with a time limit for its first and each further byte, so a FIFO nobody writes to ends
// with an error instead of a hang.
#include <QByteArray>
#include <QString>

#include <optional>

namespace gml {

// Calibrations, transforms, cluster files: a few kilobytes in practice.
inline constexpr qint64 kSmallInputBytes = 1 << 20;
// A shard's plan lists every file of a job (thousands of paths).
inline constexpr qint64 kPlanInputBytes = 64 << 20;

struct SmallInputLimits
{
    qint64 maxBytes = kSmallInputBytes;
    int pipeTimeoutMs = 10'000; // the longest a pipe may stay silent
};

// The bytes of `path`, or nullopt with `*error` = "PATH: why" (`what` names the input in the
// message: "a calibration file").
std::optional<QByteArray> readSmallInput(const QString &path, const QString &what, QString *error,
                                         SmallInputLimits limits = {});

// "1 MiB", "16 MiB", "512 KiB": how a limit reads in a message.
QString byteLimitText(qint64 bytes);

} // namespace gml
