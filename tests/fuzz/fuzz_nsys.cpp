// SPDX-License-Identifier: GPL-3.0-or-later
#include "fuzzimport.h"
#include "nsysimporter.h"

GML_FUZZ_IMPORTER(NsysSqliteImporter, ".sqlite")
