import Interlock
