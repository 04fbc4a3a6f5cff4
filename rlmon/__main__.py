from rlmon.cli import main

raise SystemExit(main())
