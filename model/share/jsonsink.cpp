// SPDX-License-Identifier: GPL-3.0-or-later
#include "jsonsink.h"

#include <QByteArray>

namespace gml {

void appendJsonString(std::string &out, std::string_view text)
{
    out += '"';
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += ch;
        } else if (c < 0x20) {
            static const char hex[] = "0123456789abcdef";
            out += "\\u00";
            out += hex[c >> 4];
            out += hex[c & 15];
        } else {
            out += ch;
        }
    }
    out += '"';
}

void appendJsonString(std::string &out, const QString &text)
{
    const QByteArray utf8 = text.toUtf8();
    appendJsonString(out, std::string_view(utf8.constData(), size_t(utf8.size())));
}

void appendMicros(std::string &out, TimeNs ns)
{
    if (ns < 0) {
        out += '-';
        ns = -ns;
    }
    out += std::to_string(ns / 1000);
    const int frac = int(ns % 1000);
    if (frac) {
        char digits[5] = {'.', char('0' + frac / 100), char('0' + frac / 10 % 10),
                          char('0' + frac % 10), 0};
        out += digits;
    }
}

} // namespace gml
