// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>
#include <QList>
#include <QPointer>

class QAction;
class QLineEdit;
class QListWidget;

namespace gml {

// Ctrl+Shift+P: every action of the window in one list, with its menu path and shortcut, as in
// VS Code and Perfetto's omnibox. Typing narrows it (every word must appear, in any order);
// Enter or a click runs the action; Esc closes.
class CommandPalette : public QDialog
{
    Q_OBJECT
public:
    explicit CommandPalette(QWidget *parent = nullptr);

    // The actions to offer, as (path, action): "View › Show › Analysis". Disabled ones are
    // listed greyed out, so a user learns that they exist.
    void setActions(const QList<std::pair<QString, QAction *>> &actions);
    // Actions of a menu bar or menu, recursively, with their paths (separators and submenus out).
    static QList<std::pair<QString, QAction *>> collect(const QList<QAction *> &actions,
                                                        const QString &prefix = {});

    QLineEdit *edit() const { return m_edit; }
    QListWidget *list() const { return m_list; }
    // The rows shown now (tests).
    QStringList shown() const;
    void runCurrent();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void refilter();

    QLineEdit *m_edit;
    QListWidget *m_list;
    QList<std::pair<QString, QPointer<QAction>>> m_actions;
};

} // namespace gml
