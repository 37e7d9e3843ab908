// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QAbstractTableModel>
#include <QPlainTextEdit>
#include <QWidget>

#include <vector>

class QComboBox;
class QCompleter;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableView;

namespace gml {

// The rows of a query's result as they arrive: the view asks for more as it scrolls to the
// end (canFetchMore/fetchMore), the controller reads the next batch off the GUI thread and
// appends it.
class QueryModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    using QAbstractTableModel::QAbstractTableModel;
    void reset(const QStringList &columns);
    void append(std::vector<QVariantList> rows, bool done);
    void setBusy(bool busy) { m_busy = busy; }
    const QStringList &columns() const { return m_columns; }
    const QVariantList &row(int r) const { return m_rows[size_t(r)]; }
    bool isDone() const { return m_done; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    bool canFetchMore(const QModelIndex &parent) const override;
    void fetchMore(const QModelIndex &parent) override;

Q_SIGNALS:
    void moreWanted();

private:
    QStringList m_columns;
    std::vector<QVariantList> m_rows;
    bool m_done = true;
    bool m_busy = false;
};

// The SQL editor: completion of table, view and column names (as in Qt's custom completer
// example: the word under the cursor, from two letters on), Ctrl+Enter runs.
class SqlEditor : public QPlainTextEdit
{
    Q_OBJECT
public:
    explicit SqlEditor(QWidget *parent = nullptr);
    void setWords(const QStringList &words);
    QCompleter *completer() const { return m_completer; }

Q_SIGNALS:
    void runRequested();

protected:
    void keyPressEvent(QKeyEvent *e) override;

private:
    QString wordUnderCursor() const;
    void insertCompletion(const QString &word);
    QCompleter *m_completer;
};

// The Query view (a tab beside the timeline): an editor with history and completion, a result
// grid that pages, and what to do with a row. Read-only exactly as `grademl query` (the
// controller runs model/readonlyquery). A row holding a slice (id and track_id columns) or a
// time (ts, with dur) is shown in the timeline on a double-click or Enter.
class QueryView : public QWidget
{
    Q_OBJECT
public:
    explicit QueryView(QWidget *parent = nullptr);

    SqlEditor *editor() const { return m_editor; }
    QueryModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    void setHistory(const QStringList &history); // newest first
    void setCompletions(const QStringList &words);
    void setStatus(const QString &text);
    void setRunning(bool running);
    void fitColumns(); // to the rows shown, at most half the width each
    // How long one page of rows may take, in seconds (0: no limit); kept in the settings.
    int timeLimitSeconds() const;

Q_SIGNALS:
    void runRequested(const QString &sql);
    void cancelRequested();
    void rowActivated(int row);

private:
    SqlEditor *m_editor;
    QComboBox *m_history;
    QPushButton *m_run;
    QPushButton *m_cancel;
    QSpinBox *m_timeLimit;
    QLabel *m_status;
    QTableView *m_table;
    QueryModel *m_model;
};

} // namespace gml
