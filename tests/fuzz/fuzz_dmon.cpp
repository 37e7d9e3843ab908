// SPDX-License-Identifier: GPL-3.0-or-later
#include "fuzzimport.h"
#include "monitoringimporters.h"

GML_FUZZ_IMPORTER(NvidiaSmiDmonImporter, ".txt")
