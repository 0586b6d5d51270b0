/* version.h: parmc's version, printed by --version and written into every
 * manifest (manifest.c). */
#ifndef PARMC_VERSION_H
#define PARMC_VERSION_H

#define PARMC_VERSION "0.1.0"

#endif
