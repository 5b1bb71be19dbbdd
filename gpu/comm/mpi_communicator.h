// mpi_communicator.h: the Communicator (communicator.h) over MPI_COMM_WORLD, and the MPI lifetime.
//
// Exports:
//   MpiSession       RAII: MPI_Init on construction, MPI_Finalize on destruction. One per process, created
//                    first in main; a second one (or one after MPI was finalised) throws std::logic_error.
//                    world_rank() / world_size(): for messages before a communicator exists.
//   MpiCommunicator  rank and size of MPI_COMM_WORLD on a ProcessGrid whose size must equal the rank count
//                    (checked on every rank before any communication: every rank throws the same
//                    std::invalid_argument, so none is left waiting). Exchange = MPI_Sendrecv of bytes;
//                    SumDeterministic = MPI_Gather of the partials to rank 0, SumInRankOrder there,
//                    MPI_Bcast of the result.
//   MpiError         std::runtime_error naming the failed MPI call and MPI's error string.
//
// Errors: the constructor sets MPI_ERRORS_RETURN on MPI_COMM_WORLD, so a failing call returns its code and
// becomes an MpiError here instead of MPI's default abort of the whole job.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/comm/communicator.h"

namespace lqcd::comm {

class MpiError : public std::runtime_error {
 public:
  MpiError(const std::string& call, int code);
  int code() const { return code_; }

 private:
  int code_;
};

class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  // MPI_COMM_WORLD's rank and size, known from the start (before any grid is checked), for messages.
  int world_rank() const { return world_rank_; }
  int world_size() const { return world_size_; }

 private:
  int world_rank_ = 0, world_size_ = 1;
};

class MpiCommunicator final : public Communicator {
 public:
  // Requires a live MpiSession (throws std::logic_error otherwise).
  explicit MpiCommunicator(const ProcessGrid& grid);

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const ProcessGrid& grid() const override { return grid_; }
  void Exchange(int mu, Side side, const void* send, void* receive, std::size_t bytes) override;
  std::vector<double> SumDeterministic(const std::vector<double>& local) override;
  using Communicator::SumDeterministic;
  void Barrier() override;

  // Stops every rank of the job (MPI_Abort) after an error some ranks may not share, so that none of them
  // waits forever in a collective the failed rank will never reach.
  [[noreturn]] static void AbortJob(int status);

 private:
  ProcessGrid grid_;
  int rank_ = 0, size_ = 1;
};

}  // namespace lqcd::comm
