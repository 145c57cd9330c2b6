#!/bin/bash
#SBATCH --job-name=wind-speed
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=32
#SBATCH --mem-per-cpu=2G
#SBATCH --time=00:30:00
#SBATCH --output=%x-%j.out
#
# slurm-job.sh - run an h5ufunc recipe on every task of a SLURM job.
#
# Submit it from the directory that holds recipes/ (the job starts there):
#   sbatch --export=ALL,DATA=/scratch/$USER/era5 recipes/slurm-job.sh
#   sbatch --export=ALL,DATA=$PWD/demo,RECIPE=recipes/time-of-day.yaml recipes/slurm-job.sh
#
# DATA     the directory the recipe's ${DATA} names (required)
# RECIPE   the recipe to run (default recipes/wind-speed.yaml)
# H5UFUNC  the program (default: h5ufunc on PATH, e.g. after make install)
#
# srun starts one h5ufunc per task; the tasks split the datasets by rows and
# read and write them together through parallel HDF5 (MPI-IO), so the files
# must live on a file system every node sees (Lustre, GPFS, NFS).  --memory is
# each task's working budget: keep it under --mem-per-cpu, leaving room for
# MPI and HDF5.  --mpi makes h5ufunc initialise MPI whatever launcher started
# it.  Errors are printed once, on the job's output file, and srun returns
# h5ufunc's exit status (0 done, 1 failed while running, 2 refused before
# writing anything).
set -euo pipefail

cd "${SLURM_SUBMIT_DIR:-.}"
: "${DATA:?set DATA to the directory of the input files}"
recipe=${RECIPE:-recipes/wind-speed.yaml}
h5ufunc=${H5UFUNC:-h5ufunc}

# Open MPI joins srun's tasks into one job through PMIx: where slurm.conf's
# MpiDefault is not pmix, add --mpi=pmix to the srun line (h5ufunc refuses,
# with exit 2, to run as many lone tasks each doing the whole work).
# On a cluster with HDF5 on Lustre you may also want: export HDF5_USE_FILE_LOCKING=FALSE
srun "$h5ufunc" run --mpi --memory 1536M --overwrite --set DATA="$DATA" "$recipe"
