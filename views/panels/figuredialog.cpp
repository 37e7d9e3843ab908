// SPDX-License-Identifier: GPL-3.0-or-later
#include "figuredialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

namespace gml {

FigureDialog::FigureDialog(const QList<QPair<TrackId, QString>> &tracks, bool hasSelection,
                           bool hasPinned, QSize screen, bool hasOrigin, QWidget *parent)
    : QDialog(parent), m_hasOrigin(hasOrigin)
{
    setWindowTitle(tr("Export Figure"));
    auto *form = new QFormLayout;
    auto *fileRow = new QHBoxLayout;
    m_path = new QLineEdit(QStringLiteral("timeline.png"), this);
    m_path->setObjectName(QStringLiteral("figurePath"));
    auto *browse = new QPushButton(tr("Browse…"), this);
    fileRow->addWidget(m_path, 1);
    fileRow->addWidget(browse);
    form->addRow(tr("File (.png, .svg, .pdf)"), fileRow);
    auto *timeRow = new QHBoxLayout;
    m_window = new QRadioButton(tr("Visible window"), this);
    m_selection = new QRadioButton(tr("Selection"), this);
    m_selection->setEnabled(hasSelection);
    (hasSelection ? m_selection : m_window)->setChecked(true);
    timeRow->addWidget(m_window);
    timeRow->addWidget(m_selection);
    timeRow->addStretch(1);
    form->addRow(tr("Time"), timeRow);
    m_tracks = new QComboBox(this);
    m_tracks->addItem(tr("Rows on screen"), int(Tracks::OnScreen));
    m_tracks->addItem(tr("Pinned tracks"), int(Tracks::Pinned));
    m_tracks->addItem(tr("Every shown track (scrolled out too)"), int(Tracks::Shown));
    m_tracks->addItem(tr("Chosen tracks"), int(Tracks::Chosen));
    form->addRow(tr("Tracks"), m_tracks);
    m_chosen = new QListWidget(this);
    m_chosen->setObjectName(QStringLiteral("figureTracks"));
    for (const auto &[id, path] : tracks) {
        auto *item = new QListWidgetItem(path, m_chosen);
        item->setData(Qt::UserRole, id);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Unchecked);
    }
    m_chosen->setMinimumHeight(120);
    m_chosen->setVisible(false);
    form->addRow(QString(), m_chosen);
    auto *sizeRow = new QHBoxLayout;
    m_width = new QDoubleSpinBox(this);
    m_height = new QDoubleSpinBox(this);
    for (auto *s : {m_width, m_height}) {
        s->setRange(50, 20000);
        s->setDecimals(0);
    }
    m_width->setValue(screen.width());
    m_height->setValue(screen.height());
    m_unit = new QComboBox(this);
    m_unit->addItems({tr("px"), tr("cm")});
    sizeRow->addWidget(m_width);
    sizeRow->addWidget(new QLabel(QStringLiteral("×"), this));
    sizeRow->addWidget(m_height);
    sizeRow->addWidget(m_unit);
    sizeRow->addStretch(1);
    form->addRow(tr("Size"), sizeRow);
    m_fit = new QCheckBox(tr("Height fits the tracks"), this);
    m_fit->setChecked(true);
    form->addRow(QString(), m_fit);
    m_dpi = new QSpinBox(this);
    m_dpi->setRange(24, 1200);
    m_dpi->setValue(96);
    m_dpi->setSuffix(tr(" dpi (PNG)"));
    form->addRow(tr("Resolution"), m_dpi);
    m_chrome = new QCheckBox(tr("Window chrome: overview strip, row triangles, window text"), this);
    m_chrome->setChecked(false);
    m_notes = new QCheckBox(tr("Notes and bookmarks"), this);
    m_notes->setChecked(true);
    form->addRow(QString(), m_chrome);
    form->addRow(QString(), m_notes);
    m_colors = new QComboBox(this);
    m_colors->setObjectName(QStringLiteral("figureColors"));
    m_colors->addItem(tr("By name (same name, same colour)"));
    m_colors->addItem(tr("By class, with a legend (compute, communication, copy, CPU op, "
                         "Python, annotation)"));
    form->addRow(tr("Colours"), m_colors);
    m_origin = new QComboBox(this);
    m_origin->setObjectName(QStringLiteral("figureOrigin"));
    m_origin->addItem(tr("Start of the run"), int(Choice::Origin::RunStart));
    m_origin->addItem(tr("Origin set on the ruler"), int(Choice::Origin::UserOrigin));
    m_origin->addItem(tr("Left edge of the figure"), int(Choice::Origin::LeftEdge));
    if (!hasOrigin)
        m_origin->setItemData(1, 0, Qt::UserRole - 1); // disabled: no origin was set
    form->addRow(tr("Time from"), m_origin);
    m_estimate = new QLabel(this);
    m_estimate->setObjectName(QStringLiteral("figureEstimate"));
    form->addRow(QString(), m_estimate);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export Figure"), m_path->text(),
            tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
        if (!path.isEmpty())
            m_path->setText(path);
    });
    connect(m_tracks, &QComboBox::currentIndexChanged, this, [this] {
        m_chosen->setVisible(Tracks(m_tracks->currentData().toInt()) == Tracks::Chosen);
    });
    connect(m_unit, &QComboBox::currentIndexChanged, this, &FigureDialog::unitChanged);
    connect(m_fit, &QCheckBox::toggled, m_height, &QWidget::setDisabled);
    m_height->setDisabled(true);
    if (!hasPinned)
        m_tracks->setItemData(1, 0, Qt::UserRole - 1); // disabled: nothing is pinned
    // Every change that moves the figure's size shows it again.
    for (auto *box : {m_tracks, m_unit, m_colors, m_origin})
        connect(box, &QComboBox::currentIndexChanged, this, &FigureDialog::updateEstimate);
    for (auto *spin : {m_width, m_height})
        connect(spin, &QDoubleSpinBox::valueChanged, this, &FigureDialog::updateEstimate);
    connect(m_dpi, &QSpinBox::valueChanged, this, &FigureDialog::updateEstimate);
    for (auto *check : {m_fit, m_chrome, m_notes})
        connect(check, &QCheckBox::toggled, this, &FigureDialog::updateEstimate);
    connect(m_chosen, &QListWidget::itemChanged, this, &FigureDialog::updateEstimate);
    connect(m_path, &QLineEdit::textChanged, this, &FigureDialog::updateEstimate);
    connect(m_selection, &QRadioButton::toggled, this, &FigureDialog::updateEstimate);
}

void FigureDialog::setEstimator(Estimator estimator)
{
    m_estimator = std::move(estimator);
    updateEstimate();
}

void FigureDialog::updateEstimate()
{
    if (!m_estimator)
        return;
    const Choice c = choice();
    const QSize size = m_estimator(c);
    if (size.isEmpty()) {
        m_estimate->clear();
        return;
    }
    if (c.fitHeight) { // the height it will have, in the unit shown
        const QSignalBlocker quiet(m_height);
        const bool vector = c.path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive) ||
                            c.path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive);
        const double perCm = (vector ? 72.0 : 96.0) / 2.54;
        m_height->setValue(c.centimetres ? size.height() / perCm : size.height());
    }
    m_lastSize = size;
    m_estimate->setText(estimateText());
}

QString FigureDialog::estimateText() const
{
    const Choice c = choice();
    const bool vector = c.path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive) ||
                        c.path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive);
    const double perCm = (vector ? 72.0 : 96.0) / 2.54;
    const QString cm = tr("%1 × %2 cm")
                           .arg(m_lastSize.width() / perCm, 0, 'f', 1)
                           .arg(m_lastSize.height() / perCm, 0, 'f', 1);
    if (vector)
        return tr("Writes %1 × %2 pt: %3").arg(m_lastSize.width()).arg(m_lastSize.height()).arg(cm);
    const double scale = c.dpi / 96.0;
    return tr("Writes %1 × %2 px: %3 at %4 dpi")
        .arg(qRound(m_lastSize.width() * scale))
        .arg(qRound(m_lastSize.height() * scale))
        .arg(cm)
        .arg(int(c.dpi));
}

void FigureDialog::unitChanged()
{
    // Keep the size, in the other unit (cm at 96 px per inch).
    const double f = 96.0 / 2.54;
    const bool cm = m_unit->currentIndex() == 1;
    if (cm == (m_lastUnit == 1))
        return;
    for (auto *s : {m_width, m_height}) {
        const double v = s->value();
        s->setDecimals(cm ? 1 : 0);
        s->setRange(cm ? 1 : 50, cm ? 500 : 20000);
        s->setValue(cm ? v / f : v * f);
    }
    m_lastUnit = m_unit->currentIndex();
}

FigureDialog::Choice FigureDialog::choice() const
{
    Choice c;
    c.path = m_path->text().trimmed();
    c.selection = m_selection->isChecked();
    c.tracks = Tracks(m_tracks->currentData().toInt());
    for (int i = 0; i < m_chosen->count(); ++i)
        if (m_chosen->item(i)->checkState() == Qt::Checked)
            c.chosen.insert(m_chosen->item(i)->data(Qt::UserRole).toLongLong());
    c.centimetres = m_unit->currentIndex() == 1;
    c.width = m_width->value();
    c.height = m_height->value();
    c.fitHeight = m_fit->isChecked();
    c.dpi = m_dpi->value();
    c.chrome = m_chrome->isChecked();
    c.notes = m_notes->isChecked();
    c.colorByClass = m_colors->currentIndex() == 1;
    c.origin = Choice::Origin(m_origin->currentData().toInt());
    return c;
}

void FigureDialog::setChoice(const Choice &c)
{
    m_path->setText(c.path);
    (c.selection && m_selection->isEnabled() ? m_selection : m_window)->setChecked(true);
    m_tracks->setCurrentIndex(m_tracks->findData(int(c.tracks)));
    for (int i = 0; i < m_chosen->count(); ++i)
        m_chosen->item(i)->setCheckState(
            c.chosen.contains(m_chosen->item(i)->data(Qt::UserRole).toLongLong()) ? Qt::Checked
                                                                                  : Qt::Unchecked);
    m_unit->setCurrentIndex(c.centimetres ? 1 : 0);
    m_width->setValue(c.width);
    m_height->setValue(c.height);
    m_fit->setChecked(c.fitHeight);
    m_dpi->setValue(int(c.dpi));
    m_chrome->setChecked(c.chrome);
    m_notes->setChecked(c.notes);
    m_colors->setCurrentIndex(c.colorByClass ? 1 : 0);
    if (const int i = m_origin->findData(int(c.origin)); i >= 0 && (i != 1 || m_hasOrigin))
        m_origin->setCurrentIndex(i);
}

} // namespace gml
