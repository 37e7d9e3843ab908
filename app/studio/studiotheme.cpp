// SPDX-License-Identifier: GPL-3.0-or-later
#include "studiotheme.h"

#include "studiopage.h"
#include "theme.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QMenu>
#include <QSettings>

namespace gml {

namespace {
bool g_systemDark = false;
const QString kThemeKey = QStringLiteral("view/theme");
} // namespace

void setSystemDark(bool dark)
{
    g_systemDark = dark;
}

QString savedTheme()
{
    return QSettings().value(kThemeKey, QStringLiteral("system")).toString();
}

void setTheme(QWidget *window, const QString &name, bool remember)
{
    bool dark = false;
    if (!Theme::parse(name, g_systemDark, &dark))
        return;
    Theme::use(dark);
    QApplication::setPalette(Theme::current().palette()); // every widget repaints in it
    if (remember)
        QSettings().setValue(kThemeKey, name);
    for (QAction *a : window->findChildren<QAction *>())
        if (a->objectName().startsWith(QLatin1String("theme-")))
            a->setChecked(a->objectName() == QStringLiteral("theme-") + name);
}

void addThemeMenu(QMenu *view, QWidget *window)
{
    QMenu *menu = view->addMenu(pageTr("T&heme"));
    auto *group = new QActionGroup(menu);
    for (const auto &[name, title] :
         {std::pair{"light", pageTr("&Light")}, std::pair{"dark", pageTr("&Dark")},
          std::pair{"system", pageTr("&System")}}) {
        QAction *a = menu->addAction(
            title, window, [window, n = QString::fromLatin1(name)] { setTheme(window, n); });
        a->setCheckable(true);
        a->setObjectName(QStringLiteral("theme-") + QLatin1String(name));
        group->addAction(a);
    }
}

} // namespace gml
