"""python -m stackprobe"""
from stackprobe.cli.app import main

main()
