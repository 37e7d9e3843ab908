// SPDX-License-Identifier: GPL-3.0-or-later
#include "theme.h"

namespace gml {

namespace {

Theme makeLight()
{
    Theme t;
    t.dark = false;
    t.base = QColor(0xfb, 0xfb, 0xfc);
    t.alternate = QColor(0xf1, 0xf3, 0xf6);
    t.header = QColor(0xe9, 0xec, 0xf0);
    t.text = QColor(0x20, 0x24, 0x2a);
    t.muted = QColor(0x6a, 0x72, 0x7c);
    t.caution = QColor(0x80, 0x60, 0x00);
    t.grid = QColor(0xdd, 0xe1, 0xe6);
    t.border = QColor(0xc4, 0xc9, 0xd0);
    t.accent = QColor(0x1f, 0x6f, 0xd1);
    t.note = QColor(0xc0, 0x7a, 0x00);
    t.highlight = QColor(0xff, 0xa0, 0x00);
    t.sliceText = QColor(0x20, 0x24, 0x2a);
    return t;
}

Theme makeDark()
{
    Theme t;
    t.dark = true;
    t.base = QColor(0x1e, 0x20, 0x24);
    t.alternate = QColor(0x26, 0x29, 0x2e);
    t.header = QColor(0x2d, 0x31, 0x37);
    t.text = QColor(0xe4, 0xe7, 0xeb);
    t.muted = QColor(0x9a, 0xa3, 0xad);
    t.caution = QColor(0xe0, 0xb4, 0x4c);
    t.grid = QColor(0x3a, 0x3f, 0x46);
    t.border = QColor(0x4a, 0x50, 0x58);
    t.accent = QColor(0x5a, 0x9c, 0xf0);
    t.note = QColor(0xf0, 0xa8, 0x30);
    t.highlight = QColor(0xff, 0xb8, 0x30);
    t.sliceText = QColor(0x16, 0x18, 0x1c);
    return t;
}

bool g_dark = false;

} // namespace

QColor Theme::resource(ResourceClass c) const
{
    // Tableau-10 hues, readable on both backgrounds; CPU and idle greys follow the theme.
    switch (c) {
    case ResourceClass::Compute:
        return QColor(0x4c, 0x78, 0xa8);
    case ResourceClass::Communication:
        return QColor(0xe4, 0x57, 0x56);
    case ResourceClass::Copies:
        return QColor(0xf2, 0x8e, 0x2b);
    case ResourceClass::Cpu:
        return dark ? QColor(0xa0, 0xa4, 0xaa) : QColor(0x8c, 0x8c, 0x8c);
    case ResourceClass::Idle:
        return dark ? QColor(0x48, 0x4c, 0x52) : QColor(0xd8, 0xd8, 0xd8);
    }
    return text;
}

QString Theme::resourceName(ResourceClass c)
{
    switch (c) {
    case ResourceClass::Compute:
        return QStringLiteral("compute");
    case ResourceClass::Communication:
        return QStringLiteral("communication");
    case ResourceClass::Copies:
        return QStringLiteral("copies");
    case ResourceClass::Cpu:
        return QStringLiteral("CPU");
    case ResourceClass::Idle:
        return QStringLiteral("idle");
    }
    return QString();
}

QColor Theme::trackKind(TrackKind kind) const
{
    switch (kind) {
    case TrackKind::Gpu:
    case TrackKind::Stream:
        return resource(ResourceClass::Compute);
    case TrackKind::Counter:
        return QColor(0xf0, 0x9a, 0x1a);
    case TrackKind::Process:
    case TrackKind::Thread:
        return resource(ResourceClass::Cpu);
    default:
        return muted;
    }
}

const Theme &Theme::lightTheme()
{
    static const Theme t = makeLight();
    return t;
}

const Theme &Theme::darkTheme()
{
    static const Theme t = makeDark();
    return t;
}

const Theme &Theme::current()
{
    return g_dark ? darkTheme() : lightTheme();
}

void Theme::use(bool dark)
{
    g_dark = dark;
}

bool Theme::parse(const QString &name, bool systemDark, bool *dark)
{
    if (name == QLatin1String("light") || name == QLatin1String("dark") ||
        name == QLatin1String("system")) {
        *dark = name == QLatin1String("dark") || (name == QLatin1String("system") && systemDark);
        return true;
    }
    return false;
}

QPalette Theme::palette() const
{
    if (!dark)
        return QPalette(QColor(0xef, 0xf0, 0xf1)); // Fusion's light palette from its button colour
    QPalette p;
    p.setColor(QPalette::Window, QColor(0x2b, 0x2e, 0x33));
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, alternate);
    p.setColor(QPalette::ToolTipBase, header);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, muted);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(0x34, 0x38, 0x3e));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    p.setColor(QPalette::Link, accent);
    p.setColor(QPalette::Highlight, accent);
    p.setColor(QPalette::HighlightedText, QColor(0x10, 0x12, 0x14));
    p.setColor(QPalette::Light, QColor(0x45, 0x4a, 0x52));
    p.setColor(QPalette::Midlight, QColor(0x3a, 0x3e, 0x45));
    p.setColor(QPalette::Mid, QColor(0x2a, 0x2d, 0x32));
    p.setColor(QPalette::Dark, QColor(0x18, 0x1a, 0x1d));
    p.setColor(QPalette::Shadow, QColor(0x0c, 0x0d, 0x0e));
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, muted.darker(130));
    return p;
}

} // namespace gml
