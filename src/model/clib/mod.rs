//! The C library as the programs the page runs see it on Linux: glibc's `rand` and `srand`
//! (the same sequence for the same seed) and `printf`'s formatting (the same text for the
//! same arguments), for host code and for device `printf`, which formats as C's does; and
//! libstdc++'s `std::cout << x` (`iostream`), which formats through `printf`'s.

pub mod iostream;
pub mod printf;
pub mod rand;
