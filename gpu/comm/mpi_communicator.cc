#include "gpu/comm/mpi_communicator.h"

#include <mpi.h>

#include <climits>
#include <cstdint>
#include <cstdlib>

namespace lqcd::comm {
namespace {

std::string ErrorString(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return "MPI error code " + std::to_string(code);
  return std::string(text, length);
}

void Check(int code, const char* call) {
  if (code != MPI_SUCCESS) throw MpiError(call, code);
}

bool MpiIsLive() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

// One tag per (mu, side), so that two ranks calling Exchange with different directions fail to match (and
// the job hangs visibly under the test's timeout) instead of silently swapping the wrong faces.
int ExchangeTag(int mu, Side side) { return 2 * mu + static_cast<int>(side); }

}  // namespace

MpiError::MpiError(const std::string& call, int code)
    : std::runtime_error(call + " failed: " + ErrorString(code)), code_(code) {}

MpiSession::MpiSession(int* argc, char*** argv) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized || finalized) {
    throw std::logic_error("MpiSession: MPI was already initialised; create exactly one MpiSession per process");
  }
  // MPI_Init's own failure cannot use MPI_ERRORS_RETURN (no communicator exists yet): MPI aborts.
  Check(MPI_Init(argc, argv), "MPI_Init");
  Check(MPI_Comm_rank(MPI_COMM_WORLD, &world_rank_), "MPI_Comm_rank");
  Check(MPI_Comm_size(MPI_COMM_WORLD, &world_size_), "MPI_Comm_size");
}

MpiSession::~MpiSession() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

MpiCommunicator::MpiCommunicator(const ProcessGrid& grid) : grid_(grid) {
  if (!MpiIsLive()) throw std::logic_error("MpiCommunicator needs a live MpiSession");
  Check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  Check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  Check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  // Every rank sees the same grid and size, so every rank throws here together: nobody is left waiting.
  grid_.CheckRankCount(size_);
}

void MpiCommunicator::Exchange(int mu, Side side, const void* send, void* receive, std::size_t bytes) {
  CheckExchangeArguments(mu, send, receive, bytes);
  if (bytes > static_cast<std::size_t>(INT_MAX)) {
    throw std::invalid_argument("Exchange: " + std::to_string(bytes) + " bytes exceed MPI's int count (" +
                                std::to_string(INT_MAX) + ")");
  }
  const int to = grid_.Neighbour(rank_, mu, side);
  const int from = grid_.Neighbour(rank_, mu, Opposite(side));
  const int tag = ExchangeTag(mu, side);
  Check(MPI_Sendrecv(send, static_cast<int>(bytes), MPI_BYTE, to, tag, receive, static_cast<int>(bytes), MPI_BYTE,
                     from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "MPI_Sendrecv");
}

std::vector<double> MpiCommunicator::SumDeterministic(const std::vector<double>& local) {
  // Agree on the length first: a rank gathering a different count would corrupt or hang the gather.
  // One MPI_MAX reduction of (n, -n) gives the largest and the smallest length at once.
  const long long n = static_cast<long long>(local.size());
  long long mine[2] = {n, -n}, extremes[2] = {0, 0};
  Check(MPI_Allreduce(mine, extremes, 2, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  if (extremes[0] != -extremes[1]) {
    throw std::invalid_argument("SumDeterministic: the ranks pass different lengths (from " +
                                std::to_string(-extremes[1]) + " to " + std::to_string(extremes[0]) + ")");
  }
  if (n > INT_MAX / size_) {
    throw std::invalid_argument("SumDeterministic: " + std::to_string(n) + " values x " + std::to_string(size_) +
                                " ranks exceed MPI's int count");
  }
  const int count = static_cast<int>(n);
  if (count == 0) return {};
  std::vector<double> gathered(rank_ == 0 ? static_cast<std::size_t>(count) * size_ : 0);
  Check(MPI_Gather(local.data(), count, MPI_DOUBLE, gathered.data(), count, MPI_DOUBLE, 0, MPI_COMM_WORLD),
        "MPI_Gather");
  std::vector<double> sum(count);
  if (rank_ == 0) {
    std::vector<std::vector<double>> partials(size_);
    for (int r = 0; r < size_; ++r) {
      partials[r].assign(gathered.begin() + static_cast<std::ptrdiff_t>(r) * count,
                         gathered.begin() + static_cast<std::ptrdiff_t>(r + 1) * count);
    }
    sum = SumInRankOrder(partials);
  }
  // Rank 0's bits go to everyone, so all ranks hold the same value, not merely equal recomputations.
  Check(MPI_Bcast(sum.data(), count, MPI_DOUBLE, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return sum;
}

void MpiCommunicator::AllGather(const void* local, std::size_t bytes, void* all) {
  CheckAllGatherArguments(local, bytes, all, size_);
  // Agree on the count first, as SumDeterministic does: a rank sending a different count would corrupt or
  // hang the gather. One MPI_MAX reduction of (n, -n) gives the largest and the smallest count at once.
  const long long n = static_cast<long long>(bytes);
  long long mine[2] = {n, -n}, extremes[2] = {0, 0};
  Check(MPI_Allreduce(mine, extremes, 2, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  if (extremes[0] != -extremes[1]) {
    throw std::invalid_argument("AllGather: the ranks pass different sizes (from " + std::to_string(-extremes[1]) +
                                " to " + std::to_string(extremes[0]) + " bytes)");
  }
  if (bytes > static_cast<std::size_t>(INT_MAX)) {
    throw std::invalid_argument("AllGather: " + std::to_string(bytes) + " bytes per rank exceed MPI's int count (" +
                                std::to_string(INT_MAX) + ")");
  }
  if (bytes == 0) return;
  const int count = static_cast<int>(bytes);
  Check(MPI_Allgather(local, count, MPI_BYTE, all, count, MPI_BYTE, MPI_COMM_WORLD), "MPI_Allgather");
}

void MpiCommunicator::Barrier() { Check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

void MpiCommunicator::AbortJob(int status) {
  MPI_Abort(MPI_COMM_WORLD, status);
  std::abort();  // MPI_Abort does not return; this satisfies [[noreturn]] should an implementation do so
}

}  // namespace lqcd::comm
