// SPDX-License-Identifier: GPL-3.0-or-later
#include "fuzzimport.h"
#include "xplaneimporter.h"

GML_FUZZ_IMPORTER(XPlaneImporter, ".xplane.pb")
