from orav.cli import main

main()
