// SPDX-License-Identifier: MIT
// Decoder: gzip through ISA-L's igzip, zstd through libzstd, on a thread.
#include "src/ingest/decompress.h"

#if URISCAN_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace uriscan {
namespace ingest {
namespace {

// Decoded bytes travel in blocks of this size, at most kBlocksInFlight of
// them waiting for the reader: the decoder runs ahead by a few MB at most.
constexpr size_t kBlock = 1u << 20;
constexpr size_t kBlocksInFlight = 4;
constexpr size_t kReadSize = 1u << 20;  // compressed bytes per read(2)
// ISA-L counts its input in 32 bits: a mapped file goes in by parts.
constexpr size_t kMappedPart = 1u << 30;

// Where damage lies: " (member 2, from compressed byte 4711)".
std::string Where(const char* unit, uint64_t number, uint64_t start) {
  return std::string(" (") + unit + " " + std::to_string(number) +
         ", from compressed byte " + std::to_string(start) + ")";
}

#if URISCAN_HAVE_ISAL
const char* GzipErrorName(int code) {
  switch (code) {
    case ISAL_INVALID_BLOCK: return "invalid deflate block";
    case ISAL_INVALID_SYMBOL: return "invalid deflate code";
    case ISAL_INVALID_LOOKBACK: return "back-reference before the start";
    case ISAL_INVALID_WRAPPER: return "not a gzip member (bad header)";
    case ISAL_UNSUPPORTED_METHOD: return "unsupported compression method";
    case ISAL_INCORRECT_CHECKSUM: return "CRC-32 or length mismatch";
    default: return "corrupt data";
  }
}
#endif

}  // namespace

Compression Sniff(std::string_view head) {
  auto starts = [&](const char* magic, size_t n) {
    return head.size() >= n && std::memcmp(head.data(), magic, n) == 0;
  };
  if (starts("\x1f\x8b", 2)) return Compression::kGzip;
  if (starts("\x28\xb5\x2f\xfd", 4)) return Compression::kZstd;
  // A skippable frame (RFC 8878 sec. 3.1.2): magic 0x184D2A5?, little-endian.
  if (head.size() >= 4 && (head[0] & 0xf0) == 0x50 &&
      std::memcmp(head.data() + 1, "\x2a\x4d\x18", 3) == 0)
    return Compression::kZstd;
  return Compression::kNone;
}

Decoder::Decoder(Compression compression, CompressedSource source)
    : compression_(compression), source_(std::move(source)) {
  thread_ = std::thread([this] { Run(); });
}

Decoder::~Decoder() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

size_t Decoder::Read(char* dst, size_t n) {
  while (current_pos_ == current_.size()) {
    std::unique_lock<std::mutex> lock(mu_);
    if (current_.capacity()) free_.push_back(std::move(current_));
    current_ = std::string();
    current_pos_ = 0;
    cv_.notify_all();
    cv_.wait(lock, [&] { return !full_.empty() || done_; });
    if (full_.empty()) return 0;
    current_ = std::move(full_.front());
    full_.pop_front();
    cv_.notify_all();
  }
  const size_t k = std::min(n, current_.size() - current_pos_);
  std::memcpy(dst, current_.data() + current_pos_, k);
  current_pos_ += k;
  return k;
}

std::string_view Decoder::NextInput() {
  if (!head_done_) {
    head_done_ = true;
    if (!source_.head.empty()) {
      consumed_ += source_.head.size();
      return source_.head;
    }
  }
  if (!mapped_done_) {
    const size_t left = source_.mapped.size() - mapped_pos_;
    if (left > 0) {
      const size_t k = std::min(left, kMappedPart);
      const std::string_view part = source_.mapped.substr(mapped_pos_, k);
      mapped_pos_ += k;
      consumed_ += k;
      return part;
    }
    mapped_done_ = true;
  }
  if (source_.fd < 0) return {};
  in_buf_.resize(kReadSize);
  for (;;) {
    const ssize_t got = ::read(source_.fd, in_buf_.data(), in_buf_.size());
    if (got >= 0) {
      consumed_ += static_cast<size_t>(got);
      return std::string_view(in_buf_.data(), static_cast<size_t>(got));
    }
    if (errno == EINTR) continue;
    read_error_ = std::strerror(errno);
    return {};
  }
}

std::string Decoder::TakeFreeBlock() {
  std::string block;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_.empty()) {
      block = std::move(free_.front());
      free_.pop_front();
    }
  }
  block.resize(kBlock);
  return block;
}

bool Decoder::Publish(std::string* block) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return stop_ || full_.size() < kBlocksInFlight; });
  if (stop_) return false;
  full_.push_back(std::move(*block));
  cv_.notify_all();
  return true;
}

void Decoder::Finish(std::string error) {
  std::lock_guard<std::mutex> lock(mu_);
  error_ = std::move(error);
  done_ = true;
  cv_.notify_all();
}

void Decoder::Run() {
  if (compression_ == Compression::kGzip) {
    RunGzip();
  } else {
    RunZstd();
  }
}

#if URISCAN_HAVE_ISAL
// Every member of the stream (RFC 1952 sec. 2.2: members follow each other)
// through isal_inflate, which checks each member's CRC-32 and length.
void Decoder::RunGzip() {
  auto state = std::make_unique<inflate_state>();
  isal_inflate_init(state.get());
  state->crc_flag = ISAL_GZIP;
  std::string block = TakeFreeBlock();
  size_t filled = 0;
  std::string_view in;
  uint64_t in_base = 0;   // compressed offset of in[0]
  bool in_member = false;  // bytes of the current member were fed
  uint64_t member = 1, member_start = 1;  // for messages, from 1
  std::string error;
  for (;;) {
    if (state->avail_in == 0) {
      in_base = consumed_;
      in = NextInput();
      if (in.empty()) {
        if (!read_error_.empty()) {
          error = "read error: " + read_error_;
        } else if (in_member) {
          error = "gzip: unexpected end of stream at compressed byte " +
                  std::to_string(consumed_.load()) +
                  Where("member", member, member_start);
        }
        break;
      }
      state->next_in =
          reinterpret_cast<uint8_t*>(const_cast<char*>(in.data()));
      state->avail_in = static_cast<uint32_t>(in.size());
    }
    in_member = true;
    state->next_out = reinterpret_cast<uint8_t*>(&block[filled]);
    state->avail_out = static_cast<uint32_t>(kBlock - filled);
    const int r = isal_inflate(state.get());
    filled = kBlock - state->avail_out;
    if (r < 0) {
      const uint64_t at =
          in_base + static_cast<uint64_t>(
                        reinterpret_cast<const char*>(state->next_in) -
                        in.data());
      // Bytes are counted from 1, as the member's start: the damage is in
      // the last byte consumed, or in the member's first one.
      error = std::string("gzip: ") + GzipErrorName(r) +
              " at compressed byte " +
              std::to_string(std::max<uint64_t>(at, member_start)) +
              Where("member", member, member_start);
      break;
    }
    if (filled == kBlock) {
      if (!Publish(&block)) return;
      block = TakeFreeBlock();
      filled = 0;
    }
    if (state->block_state == ISAL_BLOCK_FINISH) {
      // The member is whole; whatever follows must be another member.
      const uint32_t left = state->avail_in;
      uint8_t* next = state->next_in;
      isal_inflate_reset(state.get());
      state->crc_flag = ISAL_GZIP;
      state->next_in = next;
      state->avail_in = left;
      in_member = false;
      ++member;
      member_start =
          in_base + static_cast<uint64_t>(
                        reinterpret_cast<const char*>(next) - in.data()) + 1;
    }
  }
  block.resize(filled);
  if (filled > 0 && !Publish(&block)) return;
  Finish(std::move(error));
}

#else
// A build without ISA-L (a cross build whose target has no libisal-dev):
// gzip input is an error that says so.
void Decoder::RunGzip() {
  Finish("gzip: this build of uriscan reads no gzip (built without ISA-L)");
}
#endif

// Every frame of the stream (RFC 8878: frames follow each other, skippable
// ones included); ZSTD_decompressStream moves from one frame to the next.
void Decoder::RunZstd() {
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(),
                                                          ZSTD_freeDCtx);
  std::string block = TakeFreeBlock();
  size_t filled = 0;
  size_t hint = 0;  // 0 exactly when the last frame was complete
  uint64_t frame = 1, frame_start = 1;  // for messages, from 1
  bool between_frames = false;
  std::string error;
  for (bool more = true; more && error.empty();) {
    const uint64_t in_base = consumed_;
    const std::string_view in = NextInput();
    if (in.empty()) {
      if (!read_error_.empty()) {
        error = "read error: " + read_error_;
      } else if (hint != 0) {
        error = "zstd: unexpected end of stream at compressed byte " +
                std::to_string(consumed_.load()) + Where("frame", frame, frame_start);
      }
      break;
    }
    ZSTD_inBuffer zin{in.data(), in.size(), 0};
    for (;;) {
      ZSTD_outBuffer zout{&block[filled], kBlock - filled, 0};
      const size_t r = ZSTD_decompressStream(dctx.get(), &zout, &zin);
      filled += zout.pos;
      if (ZSTD_isError(r)) {
        // Bytes are counted from 1, as the frame's start: the damage is in
        // the last byte consumed, or in the frame's first one (garbage
        // after a frame is not consumed at all).
        error = std::string("zstd: ") + ZSTD_getErrorName(r) +
                " at compressed byte " +
                std::to_string(std::max<uint64_t>(in_base + zin.pos,
                                                  frame_start)) +
                Where("frame", frame, frame_start);
        break;
      }
      if (r == 0 && !between_frames) {  // a frame ended
        ++frame;
        frame_start = in_base + zin.pos + 1;
      }
      between_frames = r == 0;
      hint = r;
      const bool out_full = zout.pos == zout.size;
      if (filled == kBlock) {
        if (!Publish(&block)) return;
        block = TakeFreeBlock();
        filled = 0;
      }
      if (zin.pos == zin.size && !out_full) break;  // needs more input
    }
  }
  block.resize(filled);
  if (filled > 0 && !Publish(&block)) return;
  Finish(std::move(error));
}

}  // namespace ingest
}  // namespace uriscan
