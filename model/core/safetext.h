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

// The one escaper for text written into XML, SVG or HTML (a run name in a report, an SVG's
// title): & < > " ' as entities, so the result is safe in element text and in a quoted
// attribute alike; characters XML cannot hold (C0 controls, C1 controls, U+FFFE, U+FFFF, a lone
// surrogate) written visibly as \xNN / \uNNNN, as safeText does, so that a hostile name neither
// breaks the document nor hides in it; tab, line feed and carriage return as character
// references (kept, in an attribute too).
QString xmlEscaped(QStringView text);

// A generated XML document (an SVG Qt wrote) with every character XML 1.0 cannot hold removed:
// they can only have come from data drawn into it, and one makes the whole document unreadable
// (a browser shows a blank figure).
QByteArray xmlWithoutForbiddenChars(const QByteArray &document);

// Text for a Markdown table cell: safeText's control-character rule, and | and the characters
// Markdown reads as markup (` * _ [ ] < > \) escaped with a backslash.
QString markdownCell(QStringView text, qsizetype maxChars = 200);

} // namespace gml
