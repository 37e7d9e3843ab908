// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Text from an input (a file's field, an option's value, a note) shown in a message or a list:
// control characters (NUL, escape sequences, C1 codes, line breaks) written as \xNN or \uNNNN
// so that nothing a file holds can move the terminal's cursor or hide what follows, and long
// text cut at `maxChars` with how long it was ("… (10485760 characters)"), so that a 10 MB
// argument is not echoed whole.
#include <QString>
#include <QStringView>

namespace gml {

QString safeText(QStringView text, qsizetype maxChars = 200);

} // namespace gml
