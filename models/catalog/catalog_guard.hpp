// Included by every catalog header (the GPU, MIG, vGPU, host, NIC, interconnect and workload catalogs, the link
// defaults, the look-up they share and the GPU-name match) and by the compute fit, which reads the GPU catalog. The
// engine (sim/) and the network model (models/network/) read the figures resolve() found, never a catalog: their
// targets define VTSIM_NO_CATALOG, so no header of theirs can bring a catalog in, directly or through another header
// (tests/tools/check_layering.sh holds their direct includes). The types a catalog lists are headers of their own
// that they may include: models/catalog/gpu_spec.hpp, mig_profile.hpp, nic_spec.hpp, transformer_config.hpp. No
// include guard: each catalog header checks again.
#ifdef VTSIM_NO_CATALOG
#error "a catalog header in sim/ or models/network/ (see the include chain above; docs/design.md, Layout)"
#endif
