# The Debian package (`cpack -G DEB`, run by scripts/package): the install tree under /usr.
# Depends comes from dpkg-shlibdeps over the binary, so it names the exact Qt 6 and QCustomPlot
# runtime libraries the build linked. No maintainer scripts: dpkg triggers of shared-mime-info,
# desktop-file-utils, hicolor-icon-theme and man-db refresh their databases.
set(RINGSCOPE_PACKAGE_CONTACT "The Ringscope developers" CACHE STRING "Maintainer of the .deb")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ringscope)
set(CPACK_PACKAGE_VENDOR "The Ringscope developers")
set(CPACK_PACKAGE_CONTACT "${RINGSCOPE_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_HOMEPAGE_URL "https://github.com/ringscope/ringscope")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "timeline viewer and analyser for distributed AI training traces")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "timeline viewer and analyser for distributed AI training traces
Ringscope opens torch_npu (Ascend, HCCL) and PyTorch Kineto (NCCL, RCCL)
profiler traces, one per rank or a whole job, on a zoomable timeline and
finds the communication problems in them: collectives that carry an extra
internal memcpy because their input is misaligned, the rank that delays a
collective and the ranks that wait for it, and the per-step split of
computing and communication. A headless command line (info, analyze,
export) serves scripts and CI.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Directories 0755 whatever the umask of the machine that packages.
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
include(CPack)
