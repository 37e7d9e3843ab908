// SPDX-License-Identifier: GPL-3.0-or-later
#include "terminalout.h"

#include <string>

namespace gml::cli {

qint64 TerminalOut::writeData(const char *data, qint64 size)
{
    static const char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(size_t(size) + 8);
    for (qint64 i = 0; i < size; ++i) {
        const auto c = static_cast<unsigned char>(data[i]);
        if (m_afterC2) {
            m_afterC2 = false;
            if (c >= 0x80 && c < 0xa0) { // U+0080..U+009F: C1 controls (CSI is U+009B)
                out += "\\u00";
                out += hex[c >> 4];
                out += hex[c & 15];
                continue;
            }
            out += char(0xc2);
        }
        if (c == 0xc2) {
            m_afterC2 = true;
            continue;
        }
        if ((c < 0x20 && c != '\n' && c != '\r' && c != '\t') || c == 0x7f) {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
            continue;
        }
        out += char(c);
    }
    if (!out.empty() && std::fwrite(out.data(), 1, out.size(), m_file) != out.size())
        return -1;
    return size;
}

} // namespace gml::cli
