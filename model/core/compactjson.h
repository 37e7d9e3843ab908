// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonArray>
#include <QJsonObject>

#include <string>

namespace gml {

// The compact JSON text of an object or an array, byte for byte what
// QJsonDocument(value).toJson(QJsonDocument::Compact) writes (the same member order, number
// forms and string escapes: Qt 6's qjsonwriter.cpp), UTF-8. Qt's writer appends each piece to a
// QByteArray and allocates one for every number: a rank's metadata (its process groups list
// every rank of the job) cost about 140 instructions a byte, twice a file, and the import of
// 1,024 rank files spent a fifth of its time there (issue 74).
std::string compactJson(const QJsonObject &object);
std::string compactJson(const QJsonArray &array);

} // namespace gml
