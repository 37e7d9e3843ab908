// SPDX-License-Identifier: GPL-3.0-or-later
#include "safetext.h"

namespace gml {

QString safeText(QStringView text, qsizetype maxChars)
{
    QString out;
    const qsizetype shown = std::min(text.size(), std::max<qsizetype>(maxChars, 1));
    out.reserve(shown + 16);
    for (qsizetype i = 0; i < shown; ++i) {
        const char16_t c = text[i].unicode();
        if (c < 0x20 || c == 0x7f)
            out += QStringLiteral("\\x%1").arg(unsigned(c), 2, 16, QLatin1Char('0'));
        else if ((c >= 0x80 && c < 0xa0) || c == 0x2028 || c == 0x2029)
            out += QStringLiteral("\\u%1").arg(unsigned(c), 4, 16, QLatin1Char('0'));
        else
            out += QChar(c);
    }
    if (shown < text.size())
        out += QStringLiteral("… (%1 characters)").arg(text.size());
    return out;
}

} // namespace gml
