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

QString xmlEscaped(QStringView text)
{
    QString out;
    out.reserve(text.size() + 16);
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char16_t c = text[i].unicode();
        switch (c) {
        case u'&':
            out += QLatin1String("&amp;");
            continue;
        case u'<':
            out += QLatin1String("&lt;");
            continue;
        case u'>':
            out += QLatin1String("&gt;");
            continue;
        case u'"':
            out += QLatin1String("&quot;");
            continue;
        case u'\'':
            out += QLatin1String("&#39;");
            continue;
        case u'\t':
            out += QLatin1String("&#9;");
            continue;
        case u'\n':
            out += QLatin1String("&#10;");
            continue;
        case u'\r':
            out += QLatin1String("&#13;");
            continue;
        default:
            break;
        }
        if (QChar::isHighSurrogate(c) && i + 1 < text.size() &&
            QChar::isLowSurrogate(text[i + 1].unicode())) {
            out += text[i];
            out += text[++i];
        } else if (c < 0x20 || c == 0x7f)
            out += QStringLiteral("\\x%1").arg(unsigned(c), 2, 16, QLatin1Char('0'));
        else if ((c >= 0x80 && c < 0xa0) || c == 0x2028 || c == 0x2029 || c == 0xfffe ||
                 c == 0xffff || QChar::isSurrogate(c))
            out += QStringLiteral("\\u%1").arg(unsigned(c), 4, 16, QLatin1Char('0'));
        else
            out += QChar(c);
    }
    return out;
}

QByteArray xmlWithoutForbiddenChars(const QByteArray &document)
{
    // In UTF-8 the forbidden C0 characters are single bytes below 0x20 (never part of a
    // multi-byte sequence); C1 controls are 0xC2 0x80-0x9F, U+FFFE/U+FFFF 0xEF 0xBF 0xBE/0xBF.
    QByteArray out;
    out.reserve(document.size());
    const auto *b = reinterpret_cast<const unsigned char *>(document.constData());
    const qsizetype n = document.size();
    for (qsizetype i = 0; i < n; ++i) {
        const unsigned char c = b[i];
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
            continue;
        if (c == 0x7f)
            continue;
        if (c == 0xc2 && i + 1 < n && b[i + 1] >= 0x80 && b[i + 1] < 0xa0) {
            ++i;
            continue;
        }
        if (c == 0xef && i + 2 < n && b[i + 1] == 0xbf && (b[i + 2] == 0xbe || b[i + 2] == 0xbf)) {
            i += 2;
            continue;
        }
        out += char(c);
    }
    return out;
}

QString markdownCell(QStringView text, qsizetype maxChars)
{
    const QString safe = safeText(text, maxChars);
    QString out;
    out.reserve(safe.size() + 8);
    for (const QChar c : safe) {
        if (QStringView(u"|`*_[]<>").contains(c))
            out += QLatin1Char('\\');
        out += c;
    }
    return out;
}

} // namespace gml
