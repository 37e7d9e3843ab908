// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>
#include <QTextStream>

namespace gml::cli {

// Exit codes of the public CLI.
enum ExitCode { Ok = 0, SomeFailed = 1, Usage = 2 };

int importCommand(const QStringList &args, QTextStream &out, QTextStream &err);
int infoCommand(const QStringList &args, QTextStream &out, QTextStream &err);
int queryCommand(const QStringList &args, QTextStream &out, QTextStream &err);

} // namespace gml::cli
