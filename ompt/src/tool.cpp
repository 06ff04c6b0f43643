// Placeholder for the OMPT tool's entry point (the lead's ompt/src/ replaces it): a tool that
// declines (returns no callbacks), so libomp runs the program unrecorded and `moirai record`
// has a library to load.
extern "C" __attribute__((visibility("default"))) void* ompt_start_tool(unsigned int /*omp_version*/,
                                                                        const char* /*runtime_version*/) {
  return nullptr;
}
