// SPDX-License-Identifier: GPL-3.0-or-later
// The registry of studio pages (studiopage.h): a new page adds its factory here, one line.
#include "studiopage.h"

namespace gml {

std::unique_ptr<StudioPage> makeFlamePage(); // flamepage.cpp

const std::vector<PageFactory> &studioPages()
{
    static const std::vector<PageFactory> pages{
        &makeFlamePage,
    };
    return pages;
}

} // namespace gml
