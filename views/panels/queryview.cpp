// SPDX-License-Identifier: GPL-3.0-or-later
#include "queryview.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QCompleter>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QScrollBar>
#include <QSettings>
#include <QShortcut>
#include <QSpinBox>
#include <QSplitter>
#include <QStringListModel>
#include <QTableView>
#include <QTextBlock>
#include <QVBoxLayout>

namespace gml {

namespace {

// Ready-made queries over the views of docs/query.md, for the history's first use.
const char *const kExamples[] = {
    "SELECT run, name, count(*) AS n, sum(dur) AS total_ns FROM kernel WHERE run_kind = "
    "'measured' GROUP BY run, name ORDER BY total_ns DESC LIMIT 20",
    "SELECT run, run_kind, rank, name, ts, dur, id, track_id FROM cpu_op ORDER BY dur DESC LIMIT "
    "100",
    "SELECT series, unit, run, rank, avg(value) AS mean, max(value) AS peak FROM counter_series "
    "WHERE run_kind = 'measured' GROUP BY track_id",
    "SELECT id, track_id, ts, dur, name FROM slice_info WHERE name LIKE 'ProfilerStep#%' ORDER BY "
    "ts",
};

} // namespace

// --- the result model -------------------------------------------------------------------

void QueryModel::reset(const QStringList &columns)
{
    beginResetModel();
    m_columns = columns;
    m_rows.clear();
    m_done = false;
    m_busy = false;
    endResetModel();
}

void QueryModel::append(std::vector<QVariantList> rows, bool done)
{
    m_done = done;
    m_busy = false;
    if (rows.empty())
        return;
    beginInsertRows({}, int(m_rows.size()), int(m_rows.size() + rows.size()) - 1);
    for (auto &r : rows)
        m_rows.push_back(std::move(r));
    endInsertRows();
}

int QueryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int QueryModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_columns.size());
}

QVariant QueryModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || size_t(index.row()) >= m_rows.size())
        return {};
    const QVariant &v = m_rows[size_t(index.row())].value(index.column());
    if (role == Qt::DisplayRole || role == Qt::EditRole) {
        if (!v.isValid())
            return QStringLiteral("NULL");
        if (v.typeId() == QMetaType::QByteArray)
            return tr("(%n byte(s))", nullptr, int(v.toByteArray().size()));
        return v;
    }
    if (role == Qt::TextAlignmentRole &&
        (v.typeId() == QMetaType::LongLong || v.typeId() == QMetaType::Double))
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && !v.isValid())
        return QColor(Qt::gray);
    return {};
}

QVariant QueryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    return orientation == Qt::Horizontal ? QVariant(m_columns.value(section))
                                         : QVariant(section + 1);
}

bool QueryModel::canFetchMore(const QModelIndex &parent) const
{
    return !parent.isValid() && !m_done && !m_busy;
}

void QueryModel::fetchMore(const QModelIndex &parent)
{
    if (!canFetchMore(parent))
        return;
    m_busy = true;
    Q_EMIT moreWanted();
}

// --- the editor -------------------------------------------------------------------------

SqlEditor::SqlEditor(QWidget *parent) : QPlainTextEdit(parent), m_completer(new QCompleter(this))
{
    setObjectName(QStringLiteral("sqlEditor"));
    setPlaceholderText(
        tr("SELECT run, name, count(*), sum(dur) FROM kernel GROUP BY run, name ORDER BY 4 "
           "DESC   (Ctrl+Enter runs)"));
    QFont mono(QStringLiteral("monospace"));
    mono.setStyleHint(QFont::Monospace);
    setFont(mono);
    m_completer->setWidget(this);
    m_completer->setCompletionMode(QCompleter::PopupCompletion);
    m_completer->setCaseSensitivity(Qt::CaseInsensitive);
    m_completer->setModel(new QStringListModel(m_completer));
    connect(m_completer, qOverload<const QString &>(&QCompleter::activated), this,
            &SqlEditor::insertCompletion);
}

void SqlEditor::setWords(const QStringList &words)
{
    static_cast<QStringListModel *>(m_completer->model())->setStringList(words);
}

QString SqlEditor::wordUnderCursor() const
{
    QTextCursor c = textCursor();
    const QString block = c.block().text();
    int i = c.positionInBlock();
    int start = i;
    while (start > 0 &&
           (block[start - 1].isLetterOrNumber() || block[start - 1] == QLatin1Char('_')))
        --start;
    return block.mid(start, i - start);
}

void SqlEditor::insertCompletion(const QString &word)
{
    QTextCursor c = textCursor();
    const int typed = int(wordUnderCursor().size());
    c.movePosition(QTextCursor::Left, QTextCursor::KeepAnchor, typed);
    c.insertText(word);
    setTextCursor(c);
}

void SqlEditor::keyPressEvent(QKeyEvent *e)
{
    QAbstractItemView *popup = m_completer->popup();
    if (popup->isVisible()) {
        switch (e->key()) {
        case Qt::Key_Enter:
        case Qt::Key_Return:
        case Qt::Key_Tab:
        case Qt::Key_Escape:
            e->ignore(); // the completer takes them
            return;
        default:
            break;
        }
    }
    if ((e->key() == Qt::Key_Return || e->key() == Qt::Key_Enter) &&
        (e->modifiers() & Qt::ControlModifier)) {
        Q_EMIT runRequested();
        return;
    }
    QPlainTextEdit::keyPressEvent(e);
    const QString word = wordUnderCursor();
    if (word.size() < 2 || e->text().isEmpty()) {
        popup->hide();
        return;
    }
    if (word != m_completer->completionPrefix()) {
        m_completer->setCompletionPrefix(word);
        m_completer->popup()->setCurrentIndex(m_completer->completionModel()->index(0, 0));
    }
    if (m_completer->completionCount() == 0 ||
        (m_completer->completionCount() == 1 &&
         m_completer->currentCompletion().compare(word, Qt::CaseInsensitive) == 0)) {
        popup->hide();
        return;
    }
    QRect r = cursorRect();
    r.setWidth(popup->sizeHintForColumn(0) + popup->verticalScrollBar()->sizeHint().width() + 8);
    m_completer->complete(r);
}

// --- the view ---------------------------------------------------------------------------

int QueryView::timeLimitSeconds() const
{
    return m_timeLimit->value();
}

QueryView::QueryView(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("query"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    auto *bar = new QHBoxLayout;
    m_history = new QComboBox(this);
    m_history->setObjectName(QStringLiteral("queryHistory"));
    m_history->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_history->setMinimumContentsLength(30);
    m_history->setToolTip(tr("Earlier queries (and examples): pick one to edit it"));
    m_run = new QPushButton(tr("Run"), this);
    m_run->setToolTip(tr("Run the query (Ctrl+Enter)"));
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setEnabled(false);
    m_timeLimit = new QSpinBox(this);
    m_timeLimit->setObjectName(QStringLiteral("queryTimeLimit"));
    m_timeLimit->setRange(0, 3600);
    m_timeLimit->setSuffix(tr(" s"));
    m_timeLimit->setSpecialValueText(tr("no limit"));
    m_timeLimit->setValue(QSettings().value(QStringLiteral("query/timeLimitSeconds"), 60).toInt());
    m_timeLimit->setToolTip(
        tr("A query that runs longer than this (for one page of rows) is stopped and says so; "
           "Cancel stops it at any time"));
    connect(m_timeLimit, &QSpinBox::valueChanged, this, [](int seconds) {
        QSettings().setValue(QStringLiteral("query/timeLimitSeconds"), seconds);
    });
    m_status = new QLabel(tr("Read-only SQL over the project: slice_info, kernel, cpu_op, "
                             "counter_series, run, track, "
                             "flow … (docs/query.md)"),
                          this);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setObjectName(QStringLiteral("queryStatus"));
    m_status->setWordWrap(true);
    bar->addWidget(new QLabel(tr("History:"), this));
    bar->addWidget(m_history, 1);
    bar->addWidget(m_run);
    bar->addWidget(m_cancel);
    bar->addWidget(new QLabel(tr("Time limit:"), this));
    bar->addWidget(m_timeLimit);
    layout->addLayout(bar);
    auto *split = new QSplitter(Qt::Vertical, this);
    m_editor = new SqlEditor(split);
    m_table = new QTableView(split);
    m_model = new QueryModel(this);
    m_table->setModel(m_model);
    m_table->setObjectName(QStringLiteral("queryResult"));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->setWordWrap(false);
    split->addWidget(m_editor);
    split->addWidget(m_table);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    layout->addWidget(split, 1);
    layout->addWidget(m_status);
    auto run = [this] {
        const QString sql = m_editor->toPlainText().trimmed();
        if (!sql.isEmpty())
            Q_EMIT runRequested(sql);
    };
    connect(m_editor, &SqlEditor::runRequested, this, run);
    connect(m_run, &QPushButton::clicked, this, run);
    connect(m_cancel, &QPushButton::clicked, this, &QueryView::cancelRequested);
    connect(m_history, &QComboBox::activated, this, [this](int i) {
        if (i >= 0)
            m_editor->setPlainText(m_history->itemData(i).toString());
    });
    connect(m_table, &QTableView::activated, this,
            [this](const QModelIndex &i) { Q_EMIT rowActivated(i.row()); });
    setHistory({});
}

void QueryView::setHistory(const QStringList &history)
{
    m_history->clear();
    QStringList all = history;
    for (const char *e : kExamples)
        if (!all.contains(QLatin1String(e)))
            all << QString::fromLatin1(e);
    for (const QString &q : all)
        m_history->addItem(QString(q).simplified(), q);
    m_history->setCurrentIndex(-1);
    m_history->setPlaceholderText(
        tr("%n earlier quer(ies), then examples", nullptr, int(history.size())));
}

void QueryView::setCompletions(const QStringList &words)
{
    m_editor->setWords(words);
}

void QueryView::setStatus(const QString &text)
{
    m_status->setText(text);
}

void QueryView::fitColumns()
{
    m_table->resizeColumnsToContents();
    const int most = std::max(120, m_table->viewport()->width() / 2);
    for (int c = 0; c < m_model->columnCount(); ++c)
        m_table->setColumnWidth(c, std::min(most, m_table->columnWidth(c) + 8));
}

void QueryView::setRunning(bool running)
{
    m_run->setEnabled(!running);
    m_cancel->setEnabled(running);
}

} // namespace gml
