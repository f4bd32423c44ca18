# Precompiled headers: the third-party and standard headers nearly every file includes
# (nlohmann/json, Qt, QCustomPlot) are parsed once per target family instead of once per file.
# A test file costs about 18 s to compile without and 8 s with; CI builds everything twice
# (Release and the sanitizer build) on two cores, so this is most of its time.
# Project headers stay out, so editing one never rebuilds a precompiled header.
option(RINGSCOPE_PCH "Precompile the common third-party headers" ON)

set(RINGSCOPE_PCH_CORE
    <algorithm> <array> <atomic> <cmath> <cstdint> <cstdio> <cstring> <deque> <functional>
    <limits> <map> <memory> <mutex> <optional> <set> <sstream> <string> <string_view>
    <unordered_map> <utility> <vector>
    <nlohmann/json.hpp>)
# No Qt in core's: Qt's keyword macros (slots, signals, emit) would reach core files that never
# asked for them.
set(RINGSCOPE_PCH_UI ${RINGSCOPE_PCH_CORE} <QtCore> <QtGui> <QtWidgets> <qcustomplot.h>)
# Tests: QtTest's headers read QT_WIDGETS_LIB / QT_GUI_LIB, so core and widget tests differ.
set(RINGSCOPE_PCH_CORETEST ${RINGSCOPE_PCH_CORE} <QtTest>)
set(RINGSCOPE_PCH_UITEST ${RINGSCOPE_PCH_UI} <QtTest>)

# ringscope_pch_use(TARGET core|ui|coretest|uitest): TARGET gets the family's headers. The
# first target of a family compiles them; the others reuse that result (same flags: they link
# the same libraries).
function(ringscope_pch_use target family)
    if(NOT RINGSCOPE_PCH)
        return()
    endif()
    get_property(donor GLOBAL PROPERTY RINGSCOPE_PCH_DONOR_${family})
    if(donor)
        target_precompile_headers(${target} REUSE_FROM ${donor})
    else()
        string(TOUPPER ${family} upper)
        target_precompile_headers(${target} PRIVATE ${RINGSCOPE_PCH_${upper}})
        set_property(GLOBAL PROPERTY RINGSCOPE_PCH_DONOR_${family} ${target})
    endif()
endfunction()
