# Generates a C++ source holding every migrations/NNNN_name.sql file, in order.
# Invoked at build time: cmake -DSRC_DIR=... -DOUT=... -P embed_migrations.cmake
file(GLOB files "${SRC_DIR}/[0-9][0-9][0-9][0-9]_*.sql")
list(SORT files)
set(body "")
foreach(f IN LISTS files)
  get_filename_component(name "${f}" NAME)
  string(SUBSTRING "${name}" 0 4 version)
  math(EXPR version "${version}")
  file(READ "${f}" sql)
  string(APPEND body "    {${version}, \"${name}\", R\"retrace_sql(${sql})retrace_sql\"},\n")
endforeach()
file(WRITE "${OUT}.tmp"
"// Generated from migrations/*.sql by cmake/embed_migrations.cmake. Do not edit.\n"
"#include \"store/migrations.h\"\n\n"
"namespace retrace::store {\n\n"
"std::span<const Migration> EmbeddedMigrations() {\n"
"  static const Migration kMigrations[] = {\n${body}  };\n"
"  return kMigrations;\n"
"}\n\n"
"}  // namespace retrace::store\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
