// SPDX-License-Identifier: MIT
// The library's ingest layer (src/ingest/) as the command names it: the
// line reader and the extractors of logs and tables.
#ifndef URISCAN_SRC_CLI_INGEST_H_
#define URISCAN_SRC_CLI_INGEST_H_

#include "src/ingest/extract.h"
#include "src/ingest/line_reader.h"
#include "src/ingest/records.h"

namespace uriscan {
namespace cli {

using ingest::CountedLines;
using ingest::Extract;
using ingest::ExtractCounts;
using ingest::ExtractOptions;
using ingest::ExtractProblem;
using ingest::ExtractRecords;
using ingest::FindColumn;
using ingest::kLogFormatKind;
using ingest::kNoTargetKinds;
using ingest::kOverlongRecord;
using ingest::LineCount;
using ingest::LineReader;
using ingest::Lines;
using ingest::LogFormat;
using ingest::NoTarget;
using ingest::NoTargetName;
using ingest::ParseLogFormat;
using ingest::RecordsEnd;
using ingest::RecordCutter;
using ingest::RecordInfo;
using ingest::ReleaseRun;
using ingest::WithoutLongLines;
using ingest::WithoutLongRecords;

}  // namespace cli
}  // namespace uriscan

#endif  // URISCAN_SRC_CLI_INGEST_H_
