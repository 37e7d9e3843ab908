// SPDX-License-Identifier: GPL-3.0-or-later
#include "fuzzimport.h"
#include "samplesimporter.h"

GML_FUZZ_IMPORTER(SamplesImporter, ".csv")
