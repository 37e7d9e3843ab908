// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "calibrationfit.h"
#include "dependencygraph.h"
#include "transforms.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <map>
#include <optional>

namespace gml::sim {

struct WhatIfResult;
class DeviceCatalog;

// What one measured pair says the model missed (`grademl validate ... --fit OUT.json`): for a
// hardware change predicted from run A and measured as run B, per kernel family (the
// taxonomy's, every rank; not communication, which the network model owns) a line from a
// kernel's predicted time to its measured one, floor + factor x predicted (calibrationfit.h: a
// floor the model missed, and a rate), so another model's kernels of other sizes get their
// own; for the runtime's kernel launch calls the ratio of median calls; for the rest of the
// host's launch path (CPU ops and other runtime calls of the threads that launch GPU work, not
// data loading, not waiting for the GPU) and for data loading the ratio of their times. Each
// with the spread the pair shows, which is the calibrated band. Applied (`grademl whatif
// --calibration`, the What-if panel) to another run of the same change, after its transforms.
struct Calibration
{
    QString predictedRun; // the pair it was fitted on
    QString measuredRun;
    QString project;
    QStringList transforms;             // the change, as described when fitted
    std::map<QString, double> families; // kernel family -> measured over predicted GPU time
    // Kernel family -> its line (version 2; a file of version 1 has only `families`, applied
    // as a factor with the catalog's "calibrated" band).
    std::map<QString, FittedLine> kernels;
    // "host", "launch", "loading" -> the spread of its durations about its factor (version 2;
    // the factors themselves are `host`, `launch`, `loading`).
    std::map<QString, FittedLine> classes;
    // The launch path's share of the fitted prediction's host and GPU time (version 2): a run
    // whose share differs carries the host factor with a wider band.
    double hostShare = 0;
    int version = 2;
    std::optional<double> host, loading; // launch path, data loading
    // The runtime's launch calls apart from the rest of the launch path (the host CPU's
    // Python and dispatch): the ratio of the measured run's median launch call to the
    // prediction's, per call, so another model with more or fewer launches gets its own share.
    // Without it (a file of an earlier fit), `host` covers the launch calls too.
    std::optional<double> launch;
    bool sameVendor = false; // the change stays with one GPU vendor
    // Classes a fit left out because their ratio lay outside [kMinFactor, kMaxFactor] (not
    // written to the file; the fit says them).
    QStringList outOfRange;

    // The range a factor must lie in. A model 20 times off for a class has not missed an
    // efficiency, it predicted other work (another model, another batch): such a pair does not
    // calibrate, and a file saying so (1e308, 1e-308) is refused.
    static constexpr double kMinFactor = 0.05;
    static constexpr double kMaxFactor = 20.0;

    QJsonObject toJson() const;
    // Checks every key: a message names it and what was expected.
    static std::optional<Calibration> fromJson(const QJsonObject &o, QString *error);
    // A file written by `grademl validate --fit`; the error names the file and the byte or key.
    // Read through readSmallInput (1 MiB, files and pipes only).
    static std::optional<Calibration> load(const QString &path, QString *error);
    // The bytes of such a file (`path` names it in messages); what load() and the fuzzer use.
    static std::optional<Calibration> parse(const QByteArray &bytes, const QString &path,
                                            QString *error);
    // "run a with run on MI250 against b (p.grademl)"
    QString source() const;
    // "gemm x0.62, elementwise x1.10, host x1.30"
    QString factors() const;
};

// The factors of the pair (prediction `predicted` of run A, `measured` run B); nullopt with the
// reason when nothing of B matches the prediction (no family, no host time in common).
std::optional<Calibration> fitCalibration(const WhatIfResult &predicted,
                                          const DependencyGraph &measured, QString *error);

namespace detail {
// Applies `c` to a prepared scenario (prepare(), after its transforms): fitted classes by their
// factor and, at the band's ends, the catalog's "calibrated" range; kernel families the pair did
// not have by the kernel-efficiency range of the change. Replaces `out.unknowns` with what is
// still unknown, and notes what was applied.
bool applyCalibration(const Calibration &c, const QStringList &transforms,
                      const WhatIfContext &context, const DeviceCatalog &cat, Prepared &out,
                      QString *error);
} // namespace detail

} // namespace gml::sim
