// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "types.h"

#include <QDialog>
#include <QList>
#include <QSet>

#include <functional>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QRadioButton;
class QSpinBox;

namespace gml {

// File › Export Figure: what the figure shows (the visible window or the selection; the rows on
// screen, the pinned tracks, every shown track or chosen ones), its size in pixels or
// centimetres with the PNG's DPI, and whether the window's chrome (overview strip, expand
// triangles, window text) and the notes are drawn. The format follows the file's extension.
class FigureDialog : public QDialog
{
    Q_OBJECT
public:
    enum class Tracks { OnScreen, Pinned, Shown, Chosen };
    struct Choice
    {
        QString path;
        bool selection = false; // the selected range, else the visible window
        Tracks tracks = Tracks::OnScreen;
        QSet<TrackId> chosen; // Tracks::Chosen
        bool centimetres = false;
        double width = 1600, height = 900; // in the unit above
        bool fitHeight = true;             // the height grows to hold the rows
        double dpi = 96;
        bool chrome = true;
        bool notes = true;
        bool colorByClass = false; // by class with a legend, else by name
        // What the time axis counts from.
        enum class Origin { RunStart, UserOrigin, LeftEdge };
        Origin origin = Origin::RunStart;
    };
    // What the figure will be for a choice (logical pixels): the dialog shows it, exactly, as the
    // height when it fits the tracks and in the summary line.
    using Estimator = std::function<QSize(const Choice &)>;
    void setEstimator(Estimator estimator);
    // `tracks`: (id, path) of every shown track, for the chosen list.
    FigureDialog(const QList<QPair<TrackId, QString>> &tracks, bool hasSelection, bool hasPinned,
                 QSize screen, bool hasOrigin = false, QWidget *parent = nullptr);
    Choice choice() const;
    void setChoice(const Choice &c); // tests and the last export's settings

    QString estimateText() const; // "Writes 321 × 238 px: 8.5 × 6.3 cm at 300 dpi"

private:
    void unitChanged();
    void updateEstimate();
    QLineEdit *m_path;
    QRadioButton *m_window, *m_selection;
    QComboBox *m_tracks;
    QListWidget *m_chosen;
    QComboBox *m_unit;
    QDoubleSpinBox *m_width, *m_height;
    QCheckBox *m_fit;
    QSpinBox *m_dpi;
    QCheckBox *m_chrome, *m_notes;
    QComboBox *m_colors, *m_origin;
    QLabel *m_estimate;
    Estimator m_estimator;
    QSize m_lastSize;
    bool m_hasOrigin = false;
    int m_lastUnit = 0;
};

} // namespace gml
