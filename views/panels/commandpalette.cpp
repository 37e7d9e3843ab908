// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandpalette.h"

#include <QAction>
#include <QCoreApplication>
#include <QKeyEvent>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QRegularExpression>
#include <QVBoxLayout>

namespace gml {

namespace {
// "&Open Folder…" -> "Open Folder…"
QString plain(QString text)
{
    text.remove(QRegularExpression(QStringLiteral("&(?!&)")));
    return text;
}
} // namespace

CommandPalette::CommandPalette(QWidget *parent) : QDialog(parent)
{
    setWindowTitle(tr("Command Palette"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    m_edit = new QLineEdit(this);
    m_edit->setPlaceholderText(tr("Type a command (Enter runs it, Esc closes)"));
    m_list = new QListWidget(this);
    m_list->setUniformItemSizes(true);
    layout->addWidget(m_edit);
    layout->addWidget(m_list, 1);
    resize(560, 420);
    m_edit->installEventFilter(this);
    connect(m_edit, &QLineEdit::textChanged, this, &CommandPalette::refilter);
    connect(m_edit, &QLineEdit::returnPressed, this, &CommandPalette::runCurrent);
    connect(m_list, &QListWidget::itemActivated, this, &CommandPalette::runCurrent);
    connect(m_list, &QListWidget::itemClicked, this, &CommandPalette::runCurrent);
}

QList<std::pair<QString, QAction *>> CommandPalette::collect(const QList<QAction *> &actions,
                                                             const QString &prefix)
{
    QList<std::pair<QString, QAction *>> out;
    for (QAction *a : actions) {
        if (a->isSeparator())
            continue;
        const QString path =
            prefix.isEmpty() ? plain(a->text()) : prefix + QStringLiteral(" › ") + plain(a->text());
        if (QMenu *m = a->menu())
            out += collect(m->actions(), path);
        else if (!a->text().isEmpty())
            out.append({path, a});
    }
    return out;
}

void CommandPalette::setActions(const QList<std::pair<QString, QAction *>> &actions)
{
    m_actions.clear();
    for (const auto &[path, a] : actions)
        m_actions.append({path, QPointer<QAction>(a)});
    m_edit->clear();
    refilter();
}

void CommandPalette::refilter()
{
    m_list->clear();
    const QStringList words = m_edit->text().split(QLatin1Char(' '), Qt::SkipEmptyParts);
    for (qsizetype i = 0; i < m_actions.size(); ++i) {
        const QString &path = m_actions[i].first; // not a structured binding: the lambda
        const auto &a = m_actions[i].second;      // below reads it (clang 14 refuses those)
        if (!a)
            continue;
        if (!std::all_of(words.begin(), words.end(),
                         [&](const QString &w) { return path.contains(w, Qt::CaseInsensitive); }))
            continue;
        QString text = path;
        if (!a->shortcut().isEmpty())
            text += QStringLiteral("    ") + a->shortcut().toString(QKeySequence::NativeText);
        auto *item = new QListWidgetItem(text, m_list);
        item->setData(Qt::UserRole, int(i));
        if (!a->isEnabled())
            item->setFlags(item->flags() & ~Qt::ItemIsEnabled);
    }
    for (int r = 0; r < m_list->count(); ++r)
        if (m_list->item(r)->flags() & Qt::ItemIsEnabled) {
            m_list->setCurrentRow(r);
            break;
        }
}

QStringList CommandPalette::shown() const
{
    QStringList out;
    for (int r = 0; r < m_list->count(); ++r)
        out << m_list->item(r)->text();
    return out;
}

void CommandPalette::runCurrent()
{
    QListWidgetItem *item = m_list->currentItem();
    if (!item || !(item->flags() & Qt::ItemIsEnabled))
        return;
    const QPointer<QAction> a = m_actions.value(item->data(Qt::UserRole).toInt()).second;
    accept();
    if (a)
        a->trigger();
}

bool CommandPalette::eventFilter(QObject *watched, QEvent *event)
{
    // Up and down in the box move in the list, as in every palette.
    if (watched == m_edit && event->type() == QEvent::KeyPress) {
        const auto *k = static_cast<QKeyEvent *>(event);
        if (k->key() == Qt::Key_Down || k->key() == Qt::Key_Up || k->key() == Qt::Key_PageDown ||
            k->key() == Qt::Key_PageUp) {
            QCoreApplication::sendEvent(m_list, event);
            return true;
        }
    }
    return QDialog::eventFilter(watched, event);
}

} // namespace gml
