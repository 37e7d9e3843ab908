// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// grademl's standard output, with every control character a trace could carry (a run name's
// ESC, BEL, a C1 CSI) written visibly as \xNN or \u00NN, so that printing a project never moves
// the terminal's cursor, rings its bell or hides text, and a Markdown or text report piped
// from it holds none. Line feed, carriage return and tab pass. JSON output is unchanged (its
// strings already escape them).
#include <QIODevice>

#include <cstdio>

namespace gml::cli {

class TerminalOut : public QIODevice
{
public:
    explicit TerminalOut(std::FILE *file) : m_file(file) { open(QIODevice::WriteOnly); }
    ~TerminalOut() override
    {
        if (m_afterC2)
            std::fputc(0xc2, m_file);
        std::fflush(m_file);
    }

protected:
    qint64 readData(char *, qint64) override { return -1; }
    qint64 writeData(const char *data, qint64 size) override;

private:
    std::FILE *m_file;
    bool m_afterC2 = false; // the last byte was 0xC2 (a C1 control may follow)
};

} // namespace gml::cli
