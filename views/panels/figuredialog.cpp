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
#include <QSpinBox>
#include <QVBoxLayout>

namespace gml {

FigureDialog::FigureDialog(const QList<QPair<TrackId, QString>> &tracks, bool hasSelection,
                           bool hasPinned, QSize screen, QWidget *parent)
    : QDialog(parent)
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
}

} // namespace gml
