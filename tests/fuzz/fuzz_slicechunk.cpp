// SPDX-License-Identifier: GPL-3.0-or-later
// The slice-chunk decoder: what the `slice` virtual table runs on every blob it reads. An input
// is [4 bytes: the data blob's length, little-endian][data blob][args blob], as a slice_chunk
// row holds them. Malformed blobs must be refused, never read past. The data blob is also
// decoded as a level-of-detail summary piece (slice_lod.data, slicelod.h), which a viewport
// reads the same way, and as a counter chunk (counter_chunk.data, counterstore.h): what decodes
// must encode back to the same samples, bit for bit.
#include "counterstore.h"
#include "slicelod.h"
#include "slicestore.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

using namespace gml::slicestore;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    uint32_t dataSize = 0;
    std::memcpy(&dataSize, data, 4);
    data += 4;
    size -= 4;
    if (dataSize > size)
        dataSize = uint32_t(size);
    const std::string_view chunk(reinterpret_cast<const char *>(data), dataSize);
    const std::string_view blob(reinterpret_cast<const char *>(data) + dataSize, size - dataSize);
    {
        std::vector<gml::lod::Entry> entries;
        if (gml::lod::decodePiece(chunk, entries))
            for (const auto &e :
                 entries) // what the pager builds from them: never an overflowing end
                if (e.duration < 0 || e.start > INT64_MAX - e.duration)
                    __builtin_trap();
    }
    {
        namespace cs = gml::counterstore;
        std::vector<cs::Sample> samples, back;
        if (cs::decode(chunk, samples)) {
            std::string again;
            cs::encode(samples, again);
            if (!cs::decode(again, back) || back.size() != samples.size())
                __builtin_trap();
            for (size_t i = 0; i < samples.size(); ++i)
                if (back[i].ts != samples[i].ts || back[i].step != samples[i].step ||
                    std::memcmp(&back[i].value, &samples[i].value, sizeof(double)) != 0)
                    __builtin_trap();
        }
    }
    std::vector<Row> rows;
    ArgsTables tables;
    const bool legacy = isLegacyChunk(chunk.data(), qint64(chunk.size()));
    qint64 recordsSize = -1;
    if (!blob.empty()) {
        if (legacy)
            tables.records = blob;
        else if (!readArgsTables(blob, tables))
            return 0;
        recordsSize = qint64(tables.records.size());
    }
    if (!decode(1, chunk.data(), qint64(chunk.size()), recordsSize, 0, rows, true))
        return 0;
    std::string json;
    for (const Row &r : rows) {
        if (!r.hasArgs || legacy)
            continue;
        json.clear();
        (void)appendArgsJson(tables.records.substr(r.argsOffset, r.argsSize), tables, json);
    }
    return 0;
}
