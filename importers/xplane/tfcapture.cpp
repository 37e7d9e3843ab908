// SPDX-License-Identifier: GPL-3.0-or-later
#include "tfcapture.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

namespace gml {

std::optional<std::pair<TimeNs, QString>> tensorflowCaptureStart(const QString &path,
                                                                 const QTimeZone &zone)
{
    static const QRegularExpression folder(QStringLiteral(
        R"(^(.*)/plugins/profile/(\d{4})_(\d{2})_(\d{2})_(\d{2})_(\d{2})_(\d{2})$)"));
    const auto m = folder.match(QFileInfo(path).absolutePath());
    if (!m.hasMatch())
        return std::nullopt;
    const QDateTime local(
        QDate(m.captured(2).toInt(), m.captured(3).toInt(), m.captured(4).toInt()),
        QTime(m.captured(5).toInt(), m.captured(6).toInt(), m.captured(7).toInt()), zone);
    if (!local.isValid())
        return std::nullopt;
    const qint64 localSecs = local.toSecsSinceEpoch();
    // The profile-empty event file whose epoch is nearest the folder's time, within a day
    // (any time zone): exact to the second whatever the host's zone was.
    const QDir logdir(m.captured(1));
    qint64 best = -1;
    for (const QString &name :
         logdir.entryList({QStringLiteral("events.out.tfevents.*.profile-empty")}, QDir::Files)) {
        bool ok = false;
        const qint64 epoch = name.section(QLatin1Char('.'), 3, 3).toLongLong(&ok);
        if (ok && qAbs(epoch - localSecs) <= 86400 &&
            (best < 0 || qAbs(epoch - localSecs) < qAbs(best - localSecs)))
            best = epoch;
    }
    if (best >= 0)
        return std::pair<TimeNs, QString>{
            best * 1'000'000'000, QStringLiteral("capture start from the TensorBoard "
                                                 "profile-empty event file (to the second)")};
    return std::pair<TimeNs, QString>{localSecs * 1'000'000'000,
                                      QStringLiteral("capture start from the profile folder name "
                                                     "in time zone %1 (to the second)")
                                          .arg(QString::fromUtf8(zone.id()))};
}

} // namespace gml
