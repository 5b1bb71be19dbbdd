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
//                    MPI_Bcast of the result. AllGather = MPI_Allgather of bytes (after the ranks agree
//                    on the byte count).
//   MpiError         std::runtime_error naming the failed MPI call and MPI's error string.
//
// Errors: the constructor sets MPI_ERRORS_RETURN on MPI_COMM_WORLD, so a failing call returns its code and
// becomes an MpiError here instead of MPI's default abort of the whole job.
//
// A rank that dies (a crash, a signal, an exit without MPI_Finalize) is NOT an error that MPI returns: Open
// MPI 4.1 does not tell the survivors, and MPI_ERRORS_RETURN does not change that. They stay blocked in the
// MPI_Sendrecv or collective that needs the dead rank, and MpiCommunicator has no timeout of its own. What
// ends the job is mpirun, and we rely on its defaults: as soon as one rank dies by a signal, exits with a
// non-zero status (orte_abort_on_non_zero_status = true) or exits without MPI_Finalize, even with status 0
// (orte_allowed_exit_without_sync = false), mpirun kills every other rank, prints which rank ended and how
// ("exited on signal 6 (Aborted)", "exited with non-zero status ... Exit code: 1", "exiting improperly"),
// and exits non-zero itself, within about a second. mpi_communicator_test checks this for a rank that aborts
// before the halo exchanges and one that exits mid-sum (mpi_communicator_check --die-rank). With
// orte_abort_on_non_zero_status = false, or under a launcher that does not stop the job, the survivors of a
// non-zero exit hang: run such jobs under a wall-clock limit.
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
  void AllGather(const void* local, std::size_t bytes, void* all) override;
  void Barrier() override;

  // Stops every rank of the job (MPI_Abort) after an error some ranks may not share, so that none of them
  // waits forever in a collective the failed rank will never reach.
  [[noreturn]] static void AbortJob(int status);

 private:
  ProcessGrid grid_;
  int rank_ = 0, size_ = 1;
};

}  // namespace lqcd::comm
