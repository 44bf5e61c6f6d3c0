#ifndef COURIER_CDBUS_SHIM_H
#define COURIER_CDBUS_SHIM_H
#include <dbus/dbus.h>
#endif
