#include "distributed/mpi_job.h"

#include <mpi.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bpeforge/internal/front_ends.h"

namespace bpeforge::distributed {
namespace {

// MPI counts are ints: buffers travel in blocks of 1 KiB, so that one rank may send up to
// 2 TiB in an exchange rather than 2 GiB.
constexpr size_t kBlock = 1024;

MPI_Datatype BlockType() {
  static const MPI_Datatype type = [] {
    MPI_Datatype t;
    MPI_Type_contiguous(static_cast<int>(kBlock), MPI_BYTE, &t);
    MPI_Type_commit(&t);
    return t;
  }();
  return type;
}

// A record: 4-byte length, the pre-token's bytes, 8-byte count (host order: the ranks of a
// job run the same binary). A zero length ends a buffer; pre-tokens are never empty.
void Append(absl::string_view word, uint64_t count, std::string* out) {
  const uint32_t n = static_cast<uint32_t>(word.size());
  out->append(reinterpret_cast<const char*>(&n), sizeof n);
  out->append(word.data(), word.size());
  out->append(reinterpret_cast<const char*>(&count), sizeof count);
}

void Pad(std::string* out) { out->resize((out->size() / kBlock + 1) * kBlock, '\0'); }

template <typename F>
void ForEachRecord(const char* p, const char* end, F&& f) {
  while (p + sizeof(uint32_t) <= end) {
    uint32_t n;
    std::memcpy(&n, p, sizeof n);
    if (n == 0) return;  // padding: the end of this sender's records
    p += sizeof n;
    uint64_t count;
    std::memcpy(&count, p + n, sizeof count);
    f(absl::string_view(p, n), count);
    p += n + sizeof count;
  }
}

// Which rank owns a pre-token: a hash every process computes alike, whatever its library
// versions (absl::Hash is seeded per process, std::hash may differ between builds). FNV-1a.
int Owner(absl::string_view word, int size) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : word) h = (h ^ c) * 1099511628211ull;
  return static_cast<int>(h % static_cast<uint64_t>(size));
}

absl::Status TooLarge() {
  return absl::ResourceExhaustedError("the exchange of counts exceeds 2 TiB for one rank");
}

}  // namespace

std::optional<MpiJob> MpiJob::InitIfLaunched(int* argc, char*** argv) {
  // Open MPI's mpirun sets OMPI_COMM_WORLD_SIZE; PMIx launchers (srun) set PMIX_RANK.
  if (std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr && std::getenv("PMIX_RANK") == nullptr) {
    return std::nullopt;
  }
  int provided = 0;
  // Only the main thread calls MPI; the oneTBB workers never do.
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return MpiJob(rank, size);
}

MpiJob::MpiJob(MpiJob&& other) noexcept
    : rank_(other.rank_),
      size_(other.size_),
      owns_(std::exchange(other.owns_, false)),
      exchanged_bytes_(other.exchanged_bytes_) {}

MpiJob::~MpiJob() {
  if (owns_) MPI_Finalize();
}

absl::Status MpiJob::Agree(const absl::Status& local) {
  const int mine = local.ok() ? size_ : rank_;
  int first = size_;  // the lowest failing rank, or size_
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == size_) return absl::OkStatus();
  if (first == 0) return rank_ == 0 ? local : absl::AbortedError("rank 0 failed");
  if (rank_ == first) {
    const std::string message(local.message());
    const int header[2] = {static_cast<int>(local.code()), static_cast<int>(message.size())};
    MPI_Send(header, 2, MPI_INT, 0, 1, MPI_COMM_WORLD);
    MPI_Send(message.data(), header[1], MPI_CHAR, 0, 2, MPI_COMM_WORLD);
  }
  if (rank_ != 0) return absl::AbortedError(absl::StrCat("rank ", first, " failed"));
  int header[2];
  MPI_Recv(header, 2, MPI_INT, first, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  std::string message(static_cast<size_t>(header[1]), '\0');
  MPI_Recv(message.data(), header[1], MPI_CHAR, first, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return absl::Status(static_cast<absl::StatusCode>(header[0]),
                      absl::StrCat("rank ", first, ": ", message));
}

absl::StatusOr<std::optional<CountedText>> MpiJob::Count(const std::vector<std::string>& inputs,
                                                         const TrainOptions& options) {
  // 1. Count this rank's share of the input.
  absl::StatusOr<CountedText> local =
      CountShare(inputs, options, static_cast<size_t>(rank_), static_cast<size_t>(size_));
  if (absl::Status s = Agree(local.status()); !s.ok()) return s;

  // 2. Send each pre-token's count to the rank that owns it, and add up what arrives: every
  //    rank then holds its pre-tokens' totals, about 1/size of the distinct pre-tokens.
  std::vector<std::string> outbox(static_cast<size_t>(size_));
  for (const auto& [word, n] : local->counts) Append(word, n, &outbox[Owner(word, size_)]);
  PreTokenCounts().swap(local->counts);
  std::vector<int> send_blocks(outbox.size()), recv_blocks(outbox.size());
  std::vector<int> send_at(outbox.size()), recv_at(outbox.size());
  std::string send;
  bool too_large = false;
  for (size_t r = 0; r < outbox.size(); ++r) {
    Pad(&outbox[r]);
    too_large = too_large || send.size() / kBlock + outbox[r].size() / kBlock > INT_MAX;
    send_at[r] = static_cast<int>(send.size() / kBlock);
    send_blocks[r] = static_cast<int>(outbox[r].size() / kBlock);
    send += outbox[r];
    std::string().swap(outbox[r]);
  }
  if (absl::Status s = Agree(too_large ? TooLarge() : absl::OkStatus()); !s.ok()) return s;
  exchanged_bytes_ = send.size();
  MPI_Alltoall(send_blocks.data(), 1, MPI_INT, recv_blocks.data(), 1, MPI_INT, MPI_COMM_WORLD);
  uint64_t total_blocks = 0;
  for (size_t r = 0; r < outbox.size(); ++r) {
    recv_at[r] = static_cast<int>(total_blocks);
    total_blocks += static_cast<uint64_t>(recv_blocks[r]);
  }
  if (absl::Status s = Agree(total_blocks > INT_MAX ? TooLarge() : absl::OkStatus()); !s.ok()) {
    return s;
  }
  std::string received(total_blocks * kBlock, '\0');
  MPI_Alltoallv(send.data(), send_blocks.data(), send_at.data(), BlockType(), received.data(),
                recv_blocks.data(), recv_at.data(), BlockType(), MPI_COMM_WORLD);
  std::string().swap(send);
  PreTokenCounts owned;
  for (size_t r = 0; r < outbox.size(); ++r) {
    const char* begin = received.data() + static_cast<size_t>(recv_at[r]) * kBlock;
    ForEachRecord(begin, begin + static_cast<size_t>(recv_blocks[r]) * kBlock,
                  [&](absl::string_view word, uint64_t n) { owned[word] += n; });
  }
  std::string().swap(received);

  // 3. Gather the totals on rank 0 (each pre-token comes from exactly one rank), and the
  //    statistics, summed.
  std::string mine;
  for (const auto& [word, n] : owned) Append(word, n, &mine);
  PreTokenCounts().swap(owned);
  Pad(&mine);
  const int mine_blocks = static_cast<int>(mine.size() / kBlock);
  std::vector<int> blocks(static_cast<size_t>(size_)), at(static_cast<size_t>(size_));
  MPI_Gather(&mine_blocks, 1, MPI_INT, blocks.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  uint64_t gathered_blocks = 0;
  for (int r = 0; r < size_; ++r) {
    at[r] = static_cast<int>(gathered_blocks);
    gathered_blocks += static_cast<uint64_t>(blocks[r]);
  }
  const absl::Status fits = gathered_blocks > INT_MAX ? TooLarge() : absl::OkStatus();
  if (absl::Status s = Agree(rank_ == 0 ? fits : absl::OkStatus()); !s.ok()) return s;
  std::string all(rank_ == 0 ? gathered_blocks * kBlock : 0, '\0');
  MPI_Gatherv(mine.data(), mine_blocks, BlockType(), all.data(), blocks.data(), at.data(),
              BlockType(), 0, MPI_COMM_WORLD);
  std::string().swap(mine);
  uint64_t stats[6] = {local->bytes,
                       local->pretokens,
                       local->input.stored_bytes,
                       local->input.decompressed_bytes,
                       local->input.documents,
                       local->input.skipped_records};
  uint64_t sums[6] = {};
  MPI_Reduce(stats, sums, 6, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  const uint64_t local_largest[2] = {local->input.largest_piece_bytes,
                                     local->input.largest_window_bytes};
  uint64_t largest[2] = {};
  MPI_Reduce(local_largest, largest, 2, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank_ != 0) return std::nullopt;

  CountedText out;
  out.pattern = local->pattern;
  out.custom_pattern = local->custom_pattern;
  out.special_tokens = local->special_tokens;
  out.bytes = sums[0];
  out.pretokens = sums[1];
  out.input = {sums[2], sums[3], sums[4], sums[5], largest[0], largest[1]};
  for (int r = 0; r < size_; ++r) {
    const char* begin = all.data() + static_cast<size_t>(at[r]) * kBlock;
    ForEachRecord(begin, begin + static_cast<size_t>(blocks[r]) * kBlock,
                  [&](absl::string_view word, uint64_t n) { out.counts[word] += n; });
  }
  out.distinct = out.counts.size();
  return out;
}

int MpiJob::Broadcast(int value) {
  MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return value;
}

std::vector<uint64_t> MpiJob::Gather(uint64_t value) {
  std::vector<uint64_t> all(rank_ == 0 ? static_cast<size_t>(size_) : 0);
  MPI_Gather(&value, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  return all;
}

}  // namespace bpeforge::distributed
