! An MPI program in Fortran: Open MPI's Fortran bindings call PMPI directly, so the MPI tool
! cannot see its calls and must say so (tests/mpi_tool_test.cpp).
program mpi_fortran
  use mpi
  implicit none
  integer :: ierr, rank
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program mpi_fortran
